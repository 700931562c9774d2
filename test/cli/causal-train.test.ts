// `kiln train --task causal-lm` on a tiny corpus: the same tokenizer and `kiln data prepare` shards as
// the masked LM, the llama-tiny preset trained with evaluation (eval_perplexity), an HF model directory
// at the end; flags that belong to the other task refused with the fix; and a run killed with SIGKILL
// then resumed reproduces the losses of an uninterrupted one.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSentenceCorpus } from "../helpers/sotu-slice.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const root = tempDir("kiln-cli-causal-");

function kiln(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const corpus = writeSentenceCorpus(join(root, "corpus.txt"));
const tokenizer = join(root, "tokenizer");
const shards = join(root, "shards");
for (const r of [
  kiln("tokenizer", "train", "--input", corpus, "--vocab-size", "300", "--out", tokenizer),
  kiln(
    "data",
    "prepare",
    "--tokenizer",
    tokenizer,
    "--input",
    corpus,
    "--out",
    shards,
    "--max-length",
    "32",
    "--validation-fraction",
    "0.1",
    "--quiet",
  ),
])
  assert.equal(r.code, 0, r.err);

const data = ["--tokenizer", tokenizer, "--train-data", join(shards, "train")];
const causal = ["--task", "causal-lm", "--preset", "llama-tiny"];

/** Per-step losses of metrics.jsonl (each step logged once). */
function losses(dir: string): [number, number][] {
  return readFileSync(join(dir, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, number>)
    .filter((m) => m.loss !== undefined)
    .map((m) => [m.step!, m.loss!]);
}

test("kiln train --task causal-lm --preset llama-tiny trains on the data-prepare shards and writes a LlamaForCausalLM directory", () => {
  const out = join(root, "train");
  const r = kiln(
    "train",
    ...causal,
    ...data,
    "--eval-data",
    join(shards, "validation"),
    "--output-dir",
    out,
    "--max-steps",
    "4",
    "--eval-every",
    "2",
    "--per-replica-batch-size",
    "4",
    "--log-every",
    "1",
    "--learning-rate",
    "3e-3",
    "--quiet",
  );
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /kiln train: llama 0\.\d+M parameters, \d+ training records of 32 tokens, 4 steps of 1 × 4/);
  const summary = JSON.parse(r.out.trim().split("\n").at(-1)!) as Record<string, number | string>;
  assert.equal(summary.task, "causal-lm");
  assert.equal(summary.steps, 4);
  assert.ok(
    Math.abs((summary.eval_perplexity as number) - Math.exp(summary.eval_loss as number)) < 1e-6 * (summary.eval_perplexity as number),
  );
  const config = JSON.parse(readFileSync(join(out, "config.json"), "utf8"));
  assert.deepEqual(config.architectures, ["LlamaForCausalLM"]);
  assert.equal(config.vocab_size, 300);
  for (const f of ["model.safetensors", "tokenizer.json", "metrics.jsonl", "loss_curve.html", "runs"])
    assert.ok(existsSync(join(out, f)), f);
  assert.deepEqual(
    losses(out).map(([step]) => step),
    [1, 2, 3, 4],
  );
});

test("flags of the other task are refused up front, saying what to do", () => {
  const out = ["--output-dir", join(root, "refused")];
  let r = kiln("train", ...causal, ...data, ...out, "--mlm-probability", "0.2");
  assert.equal(r.code, 2);
  // The masked LM's own settings are its TaskSpec's (ownSettings); the library refuses them by option name.
  assert.match(r.err, /^kiln train: --mlm-probability "0\.2": sets the masking of a masked LM; --task causal-lm has none\. Leave it out/);
  r = kiln("train", ...causal, ...data, ...out, "--eval-mlm-probability", "0.15");
  assert.equal(r.code, 2);
  assert.match(
    r.err,
    /^kiln train: --eval-mlm-probability "0\.15": sets the evaluation's masking of a masked LM; --task causal-lm has none/,
  );
  r = kiln("train", ...causal, ...data, ...out, "--position-init", "sinusoidal");
  assert.equal(r.code, 2);
  assert.match(r.err, /^kiln train: --position-init "sinusoidal": starts a masked LM's position table; --task causal-lm has none/);
  r = kiln("bench", "train", "--task", "causal-lm", "--head", "all");
  assert.equal(r.code, 2);
  assert.match(r.err, /^kiln bench train: --head "all": sizes the MLM's vocabulary head; --task causal-lm has none\. Leave it out/);
  r = kiln("train", "--preset", "llama-tiny", ...data, ...out);
  assert.equal(r.code, 2);
  assert.match(
    r.err,
    /^kiln train: --preset "llama-tiny": is a causal LM \(llama\), not a masked LM as --task mlm trains\. Train it with --task causal-lm/,
  );
  r = kiln("train", "--task", "causal-lm", "--preset", "mlm-tiny", ...data, ...out);
  assert.match(r.err, /--preset "mlm-tiny": is a masked LM \(roberta\), not a causal LM as --task causal-lm trains/);
  r = kiln("train", "--task", "clm", "--preset", "llama-tiny", ...data, ...out);
  assert.match(r.err, /--task must be one of mlm, causal-lm, sequence-classification, got "clm"/);
  r = kiln("train", "--task", "causal-lm", "--preset", "llama-huge", ...data, ...out);
  assert.match(
    r.err,
    /--preset "llama-huge": is unknown\. The presets of --task causal-lm: llama-tiny, .*gpt2-124m \(--task mlm: mlm-tiny/,
  );
});

test("kiln train --task causal-lm killed with SIGKILL, then --resume: the losses equal an uninterrupted run's", async () => {
  const args = (out: string) => [
    "train",
    ...causal,
    ...data,
    "--output-dir",
    out,
    "--max-steps",
    "60",
    "--checkpoint-every",
    "2",
    "--per-replica-batch-size",
    "4",
    "--log-every",
    "1",
    "--learning-rate",
    "3e-3",
    "--quiet",
  ];
  const straight = join(root, "straight");
  assert.equal(kiln(...args(straight)).code, 0);
  const killed = join(root, "killed");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args(killed)], { stdio: "ignore" });
    // Killed as soon as checkpoint-4 is in place: the run is somewhere past it, never finished.
    const poll = setInterval(() => {
      if (existsSync(join(killed, "checkpoint-4", "trainer_state.json"))) child.kill("SIGKILL");
    }, 1);
    child.on("exit", (code, signal) => {
      clearInterval(poll);
      if (signal === "SIGKILL") resolve();
      else reject(new Error(`the run was not killed (exit ${code})`));
    });
  });
  assert.ok(!existsSync(join(killed, "model.safetensors")), "the killed run did not finish");
  const r = kiln(...args(killed), "--resume");
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /resume: continuing from .*checkpoint-\d+ at step \d+/);
  assert.deepEqual(losses(killed), losses(straight));
  assert.equal(losses(straight).length, 60);
});

test("kiln quickstart --task causal-lm: tokenizer, shards, llama-tiny training, the perplexity curve and sampled continuations", () => {
  const dir = join(root, "qs");
  const r = kiln(
    "quickstart",
    "--task",
    "causal-lm",
    "--dir",
    dir,
    "--corpus",
    corpus,
    "--steps",
    "4",
    "--batch",
    "4",
    "--vocab-size",
    "300",
    "--max-length",
    "32",
    "--preset",
    "llama-tiny",
  );
  assert.equal(r.code, 0, r.err);
  const summary = JSON.parse(r.out.trim().split("\n").at(-1)!) as Record<string, unknown>;
  assert.equal(summary.task, "causal-lm");
  assert.equal(summary.steps, 4);
  assert.equal(summary.model_dir, join(dir, "causal-model"));
  const ppl = summary.eval_perplexity as number[];
  assert.equal(ppl.length, 5, "at the start and after each step");
  (summary.eval_loss as number[]).forEach((loss, i) => assert.ok(Math.abs(Math.exp(loss) - ppl[i]!) < 0.01 * ppl[i]!));
  const lines = r.out.split("\n");
  const header = lines.indexOf("step    eval loss   perplexity");
  assert.ok(header >= 0, r.out);
  assert.match(lines[header + 1]!, /^ {4}0\s+\d+\.\d{4}\s+\d+\.\d  █+$/);
  for (const prompt of ["The state of the Union is", "My fellow citizens,", "Tonight I ask the Congress to", "Our economy"])
    assert.ok(
      lines.some((l) => l.startsWith(`${prompt} → `)),
      `no continuation of "${prompt}" in:\n${r.out}`,
    );
  assert.deepEqual(JSON.parse(readFileSync(join(dir, "causal-model", "config.json"), "utf8")).architectures, ["LlamaForCausalLM"]);
  assert.equal(kiln("quickstart", "--task", "causal-lm", "--preset", "mlm-small", "--dir", join(root, "nope")).code, 2);
});
