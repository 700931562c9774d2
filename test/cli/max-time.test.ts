// Time budgets on the command line, on a tiny corpus and the mlm-tiny preset: `kiln quickstart --max-time`
// trains until its budget and says how many steps it reached, and `kiln train --max-time` maps to the
// Trainer's maxTime (recorded in the run settings), refusing what it cannot mean.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSentenceCorpus } from "../helpers/sotu-slice.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const root = tempDir("kiln-cli-max-time-");
const corpus = writeSentenceCorpus(join(root, "corpus.txt"));

function kiln(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 180_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const lastJson = (out: string) => JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, unknown>;
/** A run's metrics.jsonl, a record per line. */
const metrics = (dir: string) =>
  readFileSync(join(dir, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { step: number; lr?: number; eval_loss?: number });
const qs = join(root, "qs");
/** `kiln train` on the quickstart's tokenizer and shards (the first test makes them). */
const data = ["--tokenizer", join(qs, "tokenizer-300"), "--train-data", join(qs, "shards-300-32", "train"), "--preset", "mlm-tiny"];
const tiny = ["--dir", qs, "--corpus", corpus, "--batch", "4", "--vocab-size", "300", "--max-length", "32", "--preset", "mlm-tiny"];

test("kiln quickstart --max-time trains until the budget and prints the steps it reached", () => {
  const r = kiln("quickstart", ...tiny, "--max-time", "4");
  assert.equal(r.code, 0, r.err);
  const summary = lastJson(r.out);
  assert.equal(summary.max_time_s, 4);
  const steps = summary.steps as number;
  assert.ok(steps >= 1, `${steps} steps`);
  // The budget ends the run (how many seconds past it a first, compiling step ends depends on the machine's load).
  assert.match(r.err, new RegExp(`time budget of 4 s reached: ${steps} steps in \\d+ s`));
  assert.equal(typeof summary.train_s, "number");
  assert.match(r.out, new RegExp(`^trained ${steps.toLocaleString("en-US")} steps in \\d+ s of a 4 s budget$`, "m"));
  assert.match(r.out, /^The State of the \[MASK\] is strong\.  →  .*\(\d\.\d{3}\)/m);
  // The recipe trains at 40% masking and evaluates at BERT's 15%; its rate holds, then decays over the last fifth.
  const settings = JSON.parse(readFileSync(join(qs, "model", `checkpoint-${steps}`, "trainer_state.json"), "utf8")).run_settings;
  assert.deepEqual([settings.mlm_probability, settings.eval_mlm_probability], [0.4, 0.15]);
  assert.deepEqual([settings.schedule, settings.decay_fraction], ["warmup_stable_decay", 0.2]);
  assert.equal(kiln("quickstart", ...tiny, "--max-time", "4", "--steps", "3").code, 2, "--max-time and --steps together");
  const other = kiln("quickstart", ...tiny, "--task", "causal-lm", "--preset", "llama-tiny", "--mlm-probability", "0.3");
  assert.equal(other.code, 2);
  assert.match(other.err, /--mlm-probability goes with --task mlm/);
  assert.equal(kiln("quickstart", ...tiny, "--max-time", "0").code, 2);
});

test("kiln quickstart --mlm-probability and --seed set the training's masking and seed; evaluation still masks 15%", () => {
  const r = kiln("quickstart", ...tiny, "--steps", "2", "--mlm-probability", "0.3", "--seed", "7");
  assert.equal(r.code, 0, r.err);
  const state = JSON.parse(readFileSync(join(qs, "model", "checkpoint-2", "trainer_state.json"), "utf8"));
  assert.deepEqual([state.run_settings.mlm_probability, state.run_settings.eval_mlm_probability, state.seed], [0.3, 0.15, 7]);
});

test("kiln train --max-time: a budgeted run ends with a final save; wrong durations and --warmup are refused", () => {
  const out = join(root, "train");
  const args = [...data, "--per-replica-batch-size", "4", "--output-dir", out, "--quiet"];
  const r = kiln("train", ...args, "--max-time", "3s");
  assert.equal(r.code, 0, r.err);
  const steps = lastJson(r.out).steps as number;
  assert.ok(steps >= 1);
  assert.ok(existsSync(join(out, "model.safetensors")));
  const checkpoint = readdirSync(out).find((n) => n === `checkpoint-${steps}`);
  assert.ok(checkpoint, readdirSync(out).join(", "));
  const state = JSON.parse(readFileSync(join(out, checkpoint, "trainer_state.json"), "utf8"));
  assert.equal(state.run_settings.max_time, 3);
  assert.equal(state.run_settings.max_steps, 0, "no step limit: the budget alone ends the run");
  assert.equal(typeof state.train_seconds, "number");

  const bad = kiln("train", ...args, "--max-time", "five minutes", "--overwrite");
  assert.equal(bad.code, 2, bad.err);
  assert.match(bad.err, /--max-time/);
  assert.doesNotMatch(bad.err, /maxTime/, "the command line's words, not the library's");
  // --evaluations spreads the evaluations over the budget: one at half of it, then the final one.
  const evals = join(root, "train-evaluations");
  const evalData = ["--eval-data", join(qs, "shards-300-32", "validation")];
  const spread = kiln(
    "train",
    ...data,
    ...evalData,
    "--per-replica-batch-size",
    "4",
    "--output-dir",
    evals,
    "--quiet",
    "--max-time",
    "4",
    "--evaluations",
    "2",
  );
  assert.equal(spread.code, 0, spread.err);
  const evaluated = metrics(evals).filter((m) => m.eval_loss !== undefined);
  assert.equal(evaluated.length, 2, JSON.stringify(evaluated));
  assert.equal(evaluated[1]!.step, lastJson(spread.out).steps);
  assert.ok(evaluated[0]!.step < evaluated[1]!.step);
  const both = kiln("train", ...args, "--max-time", "3", "--evaluations", "2", "--eval-every", "5", "--overwrite");
  assert.equal(both.code, 2, both.err);
  assert.match(both.err, /--evaluations .* or --eval-every .* not both/);
  const warmup = kiln("train", ...args, "--max-time", "3", "--warmup", "5", "--overwrite");
  assert.equal(warmup.code, 2, warmup.err);
  assert.match(warmup.err, /--warmup counts steps/);
});

test("kiln train --lr-scheduler-type warmup_stable_decay holds the peak, then decays over --decay-fraction of the run", () => {
  const out = join(root, "train-wsd");
  const args = [...data, "--per-replica-batch-size", "4", "--output-dir", out, "--quiet", "--max-steps", "10", "--warmup", "0"];
  const r = kiln(
    "train",
    ...args,
    "--learning-rate",
    "1e-3",
    "--lr-scheduler-type",
    "warmup_stable_decay",
    "--decay-fraction",
    "0.3",
    "--log-lr",
    "--log-every",
    "1",
  );
  assert.equal(r.code, 0, r.err);
  const lrs = metrics(out)
    .filter((m) => m.lr !== undefined)
    .map((m) => Number((m.lr! / 1e-3).toFixed(4)));
  // The last 30% of 10 steps decay: steps 9 and 10 at 2/3 and 1/3 of the peak (the 3rd decay step would be 0).
  assert.deepEqual(lrs, [1, 1, 1, 1, 1, 1, 1, 1, 0.6667, 0.3333]);
  const state = JSON.parse(readFileSync(join(out, "checkpoint-10", "trainer_state.json"), "utf8"));
  assert.deepEqual([state.run_settings.schedule, state.run_settings.decay_fraction], ["warmup_stable_decay", 0.3]);

  const alone = kiln("train", ...args, "--decay-fraction", "0.3", "--overwrite");
  assert.equal(alone.code, 2, alone.err);
  // The library's refusal, in the command's words: the flags that set optimizer.decayFraction and optimizer.schedule.
  const refusal =
    'kiln train: --decay-fraction "0.3": sizes the decay of --lr-scheduler-type warmup_stable_decay, ' +
    'but --lr-scheduler-type is "linear". Set --lr-scheduler-type warmup_stable_decay as well, or leave --decay-fraction out';
  assert.ok(alone.err.includes(refusal), alone.err);
  assert.doesNotMatch(alone.err, /decayFraction/, "the command line's words, not the library's");
  const unknown = kiln("train", ...args, "--lr-scheduler-type", "constant", "--overwrite");
  assert.equal(unknown.code, 2, unknown.err);
  assert.match(unknown.err, /--lr-scheduler-type/);
  assert.equal(kiln("train", ...args, "--lr-scheduler-type", "warmup_stable_decay", "--decay-fraction", "0", "--overwrite").code, 2);
});
