// The equivalence steps (bench/device/steps.ts) on small data: a reference file is checked field by field,
// data other than the reference's is refused, and `compare` fails a task whose losses are off by a few
// times the tolerance at one step while passing the other (one JSON line each, exit 1). The full record
// and a passing comparison of the bundle's two tasks run in bundle.test.ts.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { writeSotuCorpus } from "../../src/data/sotu.js";
import { LOSS_RTOL, worstStep } from "../../bench/device/steps-compare.js";
import { checkSameData, dataFingerprint, readReference, REFERENCE_FORMAT } from "../../bench/device/steps-reference.js";
import { runStepTask, type StepTask } from "../../bench/device/steps-tasks.js";
import { xlaCpuPluginPath, xlaCpuSkip } from "../helpers/xla-cpu-plugin.js";
import { tempDir } from "../helpers/temp-dir.js";

const work = tempDir("kiln-steps-test-");
const data = join(work, "data");
const stepsJs = new URL("../../bench/device/steps.js", import.meta.url).pathname;

const tiny = (task: "mlm" | "causal-lm", preset: string): StepTask => ({
  task,
  preset,
  steps: 4,
  batch: 4,
  maxLength: 32,
  learningRate: 1e-3,
  weightDecay: 0.01,
  warmupSteps: 1,
  seed: 42,
  dataSeed: 5,
});

test.before(async () => {
  const corpus = join(work, "sotu.txt");
  writeSotuCorpus(corpus, { first: 3 });
  const tok = await k.trainUnigram(k.readTextLines([corpus]), { vocabSize: 256 });
  await k.saveTokenizer(tok, join(data, "tokenizer"));
  await k.prepareDataset({
    tokenizer: join(data, "tokenizer"),
    inputs: [corpus],
    out: join(data, "shards"),
    maxLength: 32,
    progress: null,
  });
});

test("the worst step is the largest relative difference; a NaN loss is the worst of all", () => {
  assert.deepEqual(worstStep([1, 2.0001, 3], [1, 2, 3]), { maxRelDiff: Math.abs(2.0001 - 2) / 2, worstStep: 2 });
  assert.deepEqual(worstStep([1, 2, NaN], [1, 2, 3]), { maxRelDiff: Infinity, worstStep: 3 });
});

test("a reference file is checked field by field, and other data is refused", () => {
  const path = join(work, "bad.json");
  const write = (v: unknown) => writeFileSync(path, JSON.stringify(v));
  const good = {
    format: REFERENCE_FORMAT,
    recordedOn: {},
    data: dataFingerprint(data),
    tasks: [{ ...tiny("mlm", "mlm-tiny"), losses: [1, 2, 3, 4] }],
  };
  write(good);
  assert.equal(readReference(path).tasks.length, 1);
  write({ ...good, format: "other" });
  assert.throws(() => readReference(path), /--reference .*bad\.json: format is "other", expected "kiln-device-steps\/1"/);
  write({ ...good, tasks: [{ ...good.tasks[0], losses: [1, 2, 3] }] });
  assert.throws(() => readReference(path), /tasks\[0\]\.losses must hold 4 finite numbers/);
  write({ ...good, tasks: [{ ...good.tasks[0], learningRate: "fast" }] });
  assert.throws(() => readReference(path), /tasks\[0\]\.learningRate must be a number/);
  writeFileSync(path, "{");
  assert.throws(() => readReference(path), /--reference .*bad\.json: .*JSON.*make one with: steps\.js record/);
  const other = { ...good, data: { ...good.data, "tokenizer/tokenizer.json": "0".repeat(64) } };
  assert.throws(
    () => checkSameData(other as never, path, data),
    /--data .* is not the data --reference .* was recorded on: tokenizer\/tokenizer\.json differ/,
  );
});

test(
  "compare fails the task whose reference is off by 3× the tolerance at one step and passes the other",
  { skip: xlaCpuSkip },
  async () => {
    const tasks = [tiny("mlm", "mlm-tiny"), tiny("causal-lm", "llama-tiny")];
    const recorded = [];
    for (const t of tasks) recorded.push({ ...t, losses: (await runStepTask(t, data, { accelerator: "cpu", executor: "ort" })).losses });
    recorded[0]!.losses[2]! *= 1 + 3 * LOSS_RTOL;
    const reference = join(work, "reference.json");
    writeFileSync(
      reference,
      JSON.stringify({
        format: REFERENCE_FORMAT,
        recordedOn: { executor: "ort", device: "cpu:0" },
        data: dataFingerprint(data),
        tasks: recorded,
      }),
    );
    const args = ["compare", "--reference", reference, "--data", data, "--platform", "cpu", "--pjrt-plugin", xlaCpuPluginPath()];
    const r = spawnSync(process.execPath, [stepsJs, ...args], { encoding: "utf8", timeout: 300_000 });
    assert.equal(r.status, 1, r.stderr);
    const [mlm, causal] = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { bench: string; task: string; pass: boolean; maxRelDiff: number; worstStep: number; device: string });
    assert.equal(mlm!.bench, "steps");
    assert.deepEqual([mlm!.task, mlm!.pass, mlm!.worstStep, mlm!.device], ["mlm", false, 3, "xla-cpu:0"]);
    assert.ok(mlm!.maxRelDiff > 2 * LOSS_RTOL && mlm!.maxRelDiff < 4 * LOSS_RTOL, `${mlm!.maxRelDiff}`);
    assert.deepEqual([causal!.task, causal!.pass], ["causal-lm", true]);
    assert.ok(causal!.maxRelDiff < LOSS_RTOL / 10, `the executors agree far inside the tolerance: ${causal!.maxRelDiff}`);
  },
);

test("compare refuses a platform other than gpu or cpu, naming the flag", () => {
  const r = spawnSync(process.execPath, [stepsJs, "compare", "--reference", "x", "--data", data, "--platform", "tpu"], {
    encoding: "utf8",
  });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^steps\.js: --platform must be gpu or cpu, got "tpu"/);
});
