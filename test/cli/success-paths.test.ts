// The CLI's success paths, on a tiny corpus and the mlm-tiny preset: `kiln quickstart` end to end,
// `kiln train` (with --log-lr and early stopping), and `kiln fill-mask` in both output forms.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSentenceCorpus } from "../helpers/sotu-slice.js";
import type { FillMaskResult } from "../../src/pipelines/fill-mask.js";
import * as k from "../../src/index.js";
import { readSafetensors } from "../../src/models/safetensors.js";
import { sinusoidalInit } from "../../src/nn/init.js";
import { tempDir } from "../helpers/temp-dir.js";

k.setDefaultDevice("ref:0");

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const root = tempDir("kiln-cli-success-");

/** Two speeches, one sentence a line: a corpus that trains everything in seconds. */
const corpus = writeSentenceCorpus(join(root, "corpus.txt"));

function kiln(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const lastJson = (out: string) => JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, unknown>;
const qs = join(root, "qs");

test("kiln quickstart runs end to end on a tiny corpus: tokenizer, shards, mlm-tiny training, fill-mask", () => {
  const r = kiln(
    "quickstart",
    "--dir",
    qs,
    "--corpus",
    corpus,
    "--steps",
    "3",
    "--batch",
    "4",
    "--vocab-size",
    "300",
    "--max-length",
    "32",
    "--preset",
    "mlm-tiny",
  );
  assert.equal(r.code, 0, r.err);
  const summary = lastJson(r.out);
  assert.equal(summary.steps, 3);
  assert.equal((summary.eval_loss as number[]).length, 3); // after each step (the masked LM skips the one at the start)
  assert.equal(summary.model_dir, join(qs, "model"));
  assert.match(r.out, /The State of the \[MASK\] is strong\.  →  \S/);
  // The tokenizer and shards are kept under names that say their vocabulary size and length.
  for (const d of ["tokenizer-300", "shards-300-32"]) assert.ok(existsSync(join(qs, d)), d);
  for (const f of ["config.json", "model.safetensors", "tokenizer.json", "metrics.jsonl"]) assert.ok(existsSync(join(qs, "model", f)), f);
  assert.ok(!existsSync(join(qs, "sotu.txt")), "--corpus replaces the SOTU corpus");
  assert.equal(kiln("quickstart", "--preset", "huge", "--dir", join(root, "nope")).code, 2);
});

const data = ["--tokenizer", join(qs, "tokenizer-300"), "--train-data", join(qs, "shards-300-32", "train")];
const evalData = ["--eval-data", join(qs, "shards-300-32", "validation")];

test("kiln train --preset mlm-tiny from sinusoidal positions, --log-lr logs the learning rate; kiln fill-mask reads it", async () => {
  const out = join(root, "train");
  const r = kiln("train", ...data, ...evalData, "--preset", "mlm-tiny", "--max-steps", "3", "--per-replica-batch-size", "4");
  assert.equal(r.code, 2, "--output-dir is required");
  const ok = kiln(
    "train",
    ...data,
    ...evalData,
    "--preset",
    "mlm-tiny",
    "--max-steps",
    "3",
    "--per-replica-batch-size",
    "4",
    "--output-dir",
    out,
    "--quiet",
    "--log-lr",
    "--log-every",
    "1",
    "--learning-rate",
    "1e-3",
    "--warmup",
    "0",
    "--position-init",
    "sinusoidal",
  );
  assert.equal(ok.code, 0, ok.err);
  // Three steps of at most 1e-3 each move a position entry far less than a random table differs from the sinusoids (std 0.02).
  const { tensors } = await readSafetensors(join(out, "model.safetensors"));
  const positions = tensors["roberta.embeddings.position_embeddings.weight"]!;
  const sinusoids = sinusoidalInit(positions.shape[0]!, positions.shape[1]!, 0.02).dataSync() as Float32Array;
  const drift = Math.max(...Array.from(positions.data as Float32Array, (x, i) => Math.abs(x - sinusoids[i]!)));
  assert.ok(drift < 0.004, `position table is ${drift} away from the sinusoids`);
  const summary = lastJson(ok.out);
  assert.equal(summary.steps, 3);
  assert.equal(typeof summary.eval_loss, "number");
  const lines = readFileSync(join(out, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, number>);
  const lrs = lines.filter((l) => l.lr !== undefined);
  assert.deepEqual(
    lrs.map((l) => l.step),
    [1, 2, 3],
  );
  assert.ok(Math.abs(lrs[0]!.lr! - 1e-3) < 1e-9, `no warmup: the first step runs at the peak, got ${lrs[0]!.lr}`);
  assert.ok(lrs[2]!.lr! < lrs[1]!.lr!, "then the rate decays");

  const json = kiln("fill-mask", "--model", out, "The [MASK] of the Union.", "--top-k", "3", "--json");
  assert.equal(json.code, 0, json.err);
  const records = JSON.parse(json.out) as FillMaskResult[];
  assert.equal(records.length, 3);
  for (const rec of records) {
    assert.deepEqual(Object.keys(rec).sort(), ["score", "sequence", "token", "token_str"]);
    assert.ok(rec.score > 0 && rec.score <= 1 && Number.isInteger(rec.token));
    assert.ok(rec.sequence.startsWith("The") && rec.sequence.endsWith("of the Union."), rec.sequence);
  }
  // The default output: one line per guess, score first, the same guesses.
  const text = kiln("fill-mask", "--model", out, "The [MASK] of the Union.", "--top-k", "3");
  assert.equal(text.code, 0, text.err);
  assert.deepEqual(
    text.out.trim().split("\n"),
    records.map((rec) => `${rec.score.toFixed(4)}  ${JSON.stringify(rec.token_str)}  ${rec.sequence}`),
  );
});

test("kiln train --early-stopping-patience stops when eval_loss stops improving and still writes the model", () => {
  const base = ["train", ...data, "--preset", "mlm-tiny", "--per-replica-batch-size", "4", "--quiet"];
  let r = kiln(...base, "--output-dir", join(root, "es-refused"), "--early-stopping-patience", "1");
  assert.equal(r.code, 2);
  assert.match(r.err, /--early-stopping-patience watches eval_loss: give --eval-data/);
  r = kiln(...base, ...evalData, "--output-dir", join(root, "es-refused"), "--early-stopping-min-delta", "0.1");
  assert.equal(r.code, 2);
  assert.match(r.err, /--early-stopping-min-delta needs --early-stopping-patience N/);
  // No decrease counts as an improvement: the second evaluation is one without, and patience 1 stops there.
  r = kiln(
    ...base,
    ...evalData,
    "--output-dir",
    join(root, "early-2"),
    "--max-steps",
    "10",
    "--eval-every",
    "1",
    "--early-stopping-patience",
    "1",
    "--early-stopping-min-delta",
    "1000",
  );
  assert.equal(r.code, 0, r.err);
  assert.equal(lastJson(r.out).steps, 2);
  for (const f of ["config.json", "model.safetensors", "loss_curve.html"]) assert.ok(existsSync(join(root, "early-2", f)), f);
});
