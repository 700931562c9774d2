// The Trainer's parts as a library user meets them: loggers given in TrainerOptions.loggers instead of
// the default files, callbacks that read the run's state and ask it to stop, requestStop and the
// `signal` option (no process signal handlers of the Trainer's own), epochs and maxSteps that go
// through a one-epoch dataset again, and settings errors as OptionErrors with library names.
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openDataset } from "../../src/data/pipeline/dataset.js";
import { createMaskedLM } from "../../src/models/index.js";
import { Trainer, type TrainerOptions } from "../../src/train/trainer.js";
import type { Callback, Metrics, TrainerView } from "../../src/train/callbacks.js";
import type { Logger } from "../../src/train/loggers.js";
import { OptionError } from "../../src/core/option-error.js";
import * as entry from "../../src/entry/train.js";
import { TINY, tinyConfig, trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-trainer-parts-");
const data = join(root, "data");
await writeTinyShards(data, 48); // 6 batches of 8 per epoch

/** A Logger that keeps what it is given (a user's own destination). */
class MemoryLogger implements Logger {
  metrics: [number, Metrics][] = [];
  hyperparams: Record<string, unknown> | undefined;
  status: string | undefined;
  logMetrics(step: number, metrics: Metrics) {
    this.metrics.push([step, metrics]);
  }
  logHyperparams(params: Record<string, unknown>) {
    this.hyperparams = params;
  }
  async finalize(status: "success" | "stopped" | "failed") {
    await new Promise((r) => setTimeout(r, 1));
    this.status = status;
  }
}

/** fit() of the tiny masked LM on a dataset opened for `epochs` passes. */
async function fitTiny(out: string, epochs: number, options: Partial<TrainerOptions>) {
  const train = await openDataset({
    files: data,
    maxLength: TINY.length,
    batchSize: TINY.batch,
    shuffle: true,
    seed: 5,
    epochs,
    shuffleBuffer: 64,
  });
  return new Trainer({ outputDir: out, seed: 3, logEvery: 1, progress: false, ...options }).fit({
    model: createMaskedLM(tinyConfig()),
    train,
    optimizer: { learningRate: 3e-3, warmupSteps: 2 },
    masking: { maskTokenId: 4, vocabSize: TINY.vocab, specialIds: [0, 1, 2, 3, 4], mlmProbability: 0.25 },
  });
}

const stepLosses = (r: { history: Metrics[] }) => r.history.map((h) => [h.step, h.loss]);

test("epochs: 2 over a dataset opened for one epoch goes through it twice, as over one that repeats; maxSteps too", async () => {
  const once = await fitTiny(join(root, "epochs-once"), 1, { epochs: 2 });
  assert.equal(once.globalStep, 12, "two passes of 6 batches");
  const repeating = await fitTiny(join(root, "epochs-repeating"), Infinity, { epochs: 2 });
  assert.deepEqual(stepLosses(once), stepLosses(repeating), "the second pass is the dataset's own second epoch (its own order)");
  const steps = await fitTiny(join(root, "max-steps"), 1, { maxSteps: 15 });
  assert.equal(steps.globalStep, 15);
  const state = JSON.parse(readFileSync(join(root, "max-steps", "checkpoint-15", "trainer_state.json"), "utf8"));
  assert.equal(state.epoch, 2, "step 15 is in the third epoch");
});

test("loggers given replace metrics.jsonl and TensorBoard; they get the run's settings, every step's metrics, and the end", async () => {
  const out = join(root, "loggers");
  const logger = new MemoryLogger();
  const r = await trainTiny(data, out, 4, { trainer: { loggers: [logger] } });
  assert.equal(r.globalStep, 4);
  assert.ok(!existsSync(join(out, "metrics.jsonl")) && !existsSync(join(out, "runs")), `no default logs: ${readdirSync(out)}`);
  assert.deepEqual(
    logger.metrics.map(([step]) => step),
    [1, 2, 3, 4],
  );
  assert.ok(logger.metrics.every(([, m]) => Number.isFinite(m.loss) && m.epoch === 0));
  assert.equal(logger.hyperparams?.learning_rate, 3e-3);
  assert.equal(logger.hyperparams?.max_steps, 4);
  assert.equal(logger.status, "success");
  // The defaults are the public JSON-lines and TensorBoard loggers.
  assert.equal(typeof entry.JsonLinesLogger, "function");
  assert.equal(typeof entry.TensorBoardLogger, "function");
});

test("a callback reads the step, epoch and last metrics and requests a stop: a checkpoint, no final model, `stopped`", async () => {
  const out = join(root, "callback-stop");
  const seen: { step: number; epoch: number; loss: number | undefined }[] = [];
  const stopper: Callback = {
    onStepEnd(t: TrainerView) {
      seen.push({ step: t.globalStep, epoch: t.epoch, loss: t.lastMetrics.loss });
      if (t.globalStep === 3) t.requestStop({ reason: "budget spent" });
    },
  };
  const logger = new MemoryLogger();
  const r = await trainTiny(data, out, 40, { callbacks: [stopper], trainer: { loggers: [logger] } });
  assert.equal(r.globalStep, 3);
  assert.deepEqual(r.stopped, { reason: "budget spent", step: 3, checkpoint: join(out, "checkpoint-3") });
  assert.deepEqual(
    seen.map((s) => s.step),
    [1, 2, 3],
  );
  assert.ok(seen.every((s) => s.epoch === 0 && Number.isFinite(s.loss)));
  assert.equal(JSON.parse(readFileSync(join(out, "checkpoint-3", "trainer_state.json"), "utf8")).reason, "interrupted");
  assert.ok(!existsSync(join(out, "model.safetensors")), "a stopped run writes no final model");
  assert.equal(logger.status, "stopped");
  // The run continues from there to its end.
  const resumed = await trainTiny(data, out, 6, { resume: true });
  assert.equal(resumed.globalStep, 6);
  assert.equal(resumed.stopped, undefined);
});

test("an aborted `signal` stops the run after the step in flight; the Trainer adds no process signal handlers", async () => {
  const before = ["SIGINT", "SIGTERM"].map((s) => process.listenerCount(s));
  const controller = new AbortController();
  let during: number[] = [];
  const aborter: Callback = {
    onStepEnd(t) {
      during = ["SIGINT", "SIGTERM"].map((s) => process.listenerCount(s));
      if (t.globalStep === 2) controller.abort("deadline");
    },
  };
  const r = await trainTiny(data, join(root, "aborted"), 40, { callbacks: [aborter], trainer: { signal: controller.signal } });
  assert.equal(r.globalStep, 2);
  assert.equal(r.stopped?.reason, "deadline");
  assert.deepEqual(during, before);
  // Aborted before fit: not one step is trained, and the checkpoint of the starting state is written.
  const early = await trainTiny(data, join(root, "aborted-early"), 40, { trainer: { signal: AbortSignal.abort() } });
  assert.equal(early.globalStep, 0);
  assert.deepEqual(early.stopped, { reason: "aborted", step: 0, checkpoint: join(root, "aborted-early", "checkpoint-0") });
});

test("settings the Trainer cannot train with are OptionErrors naming the library option", async () => {
  const refused = async (options: Partial<TrainerOptions>, option: string, pattern: RegExp, optimizer = {}) => {
    await assert.rejects(trainTiny(data, join(root, `bad-${option}`), 4, { trainer: options, optimizer }), (e: unknown) => {
      assert.ok(e instanceof OptionError, String(e));
      assert.equal(e.option, option);
      assert.match(e.message, pattern);
      assert.doesNotMatch(e.message, /--/, "no CLI flag in a library error");
      return true;
    });
  };
  await refused({ stepsPerExecution: 0 }, "stepsPerExecution", /must be a positive integer/);
  await refused({ stepsPerExecution: 2, evalEvery: 3 }, "evalEvery", /not a multiple of stepsPerExecution 2/);
  await refused({ clipNorm: -1 }, "clipNorm", /must be (a finite number )?> 0/);
  await refused({}, "optimizer.learningRate", /must be (a finite number )?≥ 0/, { learningRate: -1 });
  await refused({ gradientAccumulation: 3 }, "gradientAccumulation", /does not split the global batch of 8/);
  await refused({ loggers: [{ log() {} } as unknown as Logger] }, "loggers[0]", /is not a Logger/);
  await refused({ signal: "SIGTERM" as unknown as AbortSignal }, "signal", /is not an AbortSignal/);
  await trainTiny(data, join(root, "seeded"), 2);
  await assert.rejects(trainTiny(data, join(root, "seeded"), 4, { resume: true, trainer: { seed: 9 } }), (e: unknown) => {
    assert.ok(e instanceof OptionError && e.option === "seed", String(e));
    assert.match(e.message, /differs from the seed 3 that .*checkpoint-2 was trained with\. Resume it with seed 3/);
    return true;
  });
});
