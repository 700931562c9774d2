// Fine-tuning a classifier on length-bucketed batches stays exact where the language models' runs are:
// a run stopped mid-epoch and resumed trains on the same batches (the data position is the epoch and
// the batches of it already read, replayed in the epoch's own order) and ends with the parameters and
// losses of the run that never stopped; 2 replicas, 2 micro-batches and 2 steps per call train one device's parameters
// (the loss normalized by the global batch's labelled rows, padding rows of partial batches included).
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadModel } from "../../src/models/index.js";
import { openClassificationDataset } from "../../src/data/pipeline/classification-dataset.js";
import { Trainer, type FitResult, type TrainerOptions } from "../../src/train/trainer.js";
import { maxRelativeDifference } from "../helpers/param-diff.js";
import { LABELS, makeTinyClassification } from "../helpers/tiny-classification.js";
import { tempDir } from "../helpers/temp-dir.js";

const data = await makeTinyClassification();
const root = tempDir("kiln-cls-resume-");
const STEPS = 16,
  BATCH = 32;

async function fit(name: string, options: Partial<TrainerOptions> = {}, stopAt?: number): Promise<FitResult> {
  const base = await loadModel(data.baseModel, { task: "sequence-classification", labels: LABELS, seed: 1 });
  const train = await openClassificationDataset({ files: data.train, batchSize: BATCH, seed: 4 });
  const trainer: Trainer = new Trainer({
    outputDir: join(root, name),
    maxSteps: STEPS,
    logEvery: 1,
    seed: 7,
    progress: false,
    loggers: [],
    ...(stopAt ? { callbacks: [{ onStepEnd: (t) => void (t.globalStep === stopAt && t.requestStop({ reason: "test" })) }] } : {}),
    ...options,
  });
  return trainer.fit({ model: base.model, params: base.params, optimizer: { learningRate: 3e-3 }, train, classWeights: [1, 1.5] });
}

const losses = (r: FitResult) => r.history.map((h) => h.loss!.toFixed(6));

test("a classifier's run stopped mid-epoch and resumed ends as the run that never stopped", async () => {
  const batchesPerEpoch = await (await openClassificationDataset({ files: data.train, batchSize: BATCH })).countBatchesPerEpoch();
  assert.ok(batchesPerEpoch < STEPS, `the runs cross an epoch boundary (${batchesPerEpoch} batches per epoch)`);
  const straight = await fit("straight");
  const stopped = await fit("resumed", {}, 5);
  assert.equal(stopped.stopped?.step, 5);
  const resumed = await fit("resumed", { resume: true });
  assert.equal(resumed.globalStep, STEPS);
  assert.deepEqual(losses(resumed), losses(straight));
  assert.equal(maxRelativeDifference(resumed.params, straight.params), 0);
});

test("2 replicas, 2 micro-batches and 2 steps per execution train one device's parameters", async () => {
  const one = await fit("one");
  for (const [name, options] of Object.entries({
    replicas: { accelerator: "cpu", devices: 2 },
    accumulation: { gradientAccumulation: 2 },
    // Groups of 2 steps break where the batch length changes (they stack into one input).
    "steps per execution": { stepsPerExecution: 2 },
  } satisfies Record<string, Partial<TrainerOptions>>)) {
    const r = await fit(name, options);
    const err = maxRelativeDifference(r.params, one.params);
    assert.ok(err < 1e-5, `${name} vs one device: max relative parameter difference ${err}`);
    assert.deepEqual(
      r.history.map((h) => h.loss!.toFixed(5)),
      one.history.map((h) => h.loss!.toFixed(5)),
      name,
    );
  }
});
