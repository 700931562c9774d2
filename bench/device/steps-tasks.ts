// The training runs behind `steps.js record` and `steps.js compare`: 20 f32 steps of a small masked LM
// and a small causal LM on the data a bundle carries (DATA_DIR/tokenizer, DATA_DIR/shards/train), run by
// the Trainer on whatever device they are given, with every step's loss logged. The settings travel in
// the reference file, so that the comparison runs exactly what was recorded.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { Trainer, type TrainerOptions } from "../../src/train/trainer.js";
import { taskSpec } from "../../src/train/tasks/index.js";

/** One recorded run: what it trains and how (everything a rerun needs), and the loss of every step. */
export interface StepTask {
  /** "mlm" or "causal-lm" (the name the comparison prints). */
  readonly task: "mlm" | "causal-lm";
  readonly preset: string;
  readonly steps: number;
  readonly batch: number;
  readonly maxLength: number;
  readonly learningRate: number;
  readonly weightDecay: number;
  readonly warmupSteps: number;
  /** Seed of init, masking and dropout (the Trainer's). */
  readonly seed: number;
  /** Seed of the data order. */
  readonly dataSeed: number;
}

/**
 * The data the runs read, as the bundle builder makes it (scripts/device/bundle-data.mjs): a tokenizer and
 * shards of the first speeches of the State of the Union corpus, records of `maxLength` tokens.
 */
export const STEP_DATA = { speeches: 24, vocabSize: 1024, maxLength: 64 } as const;

/**
 * The two runs. mlm-mini is the quickstart's masked LM (2 layers of width 256, dropout 0.1, masking in
 * the step), llama-small the CPU causal preset (4 layers, grouped-query attention, SwiGLU): products
 * large enough for a GPU's library kernels, and 20 steps of 8 × 64 tokens take seconds on a CPU.
 * A learning rate of 1e-3 moves the loss every step, so a wrong gradient shows within a few steps.
 */
/** What the two tasks' steps share: the schedule, the optimizer's settings and the seeds. */
const STEP_SETTINGS = {
  steps: 20,
  batch: 8,
  maxLength: STEP_DATA.maxLength,
  learningRate: 1e-3,
  weightDecay: 0.01,
  warmupSteps: 2,
  seed: 42,
  dataSeed: 5,
} as const;

export const STEP_TASKS: readonly StepTask[] = [
  { task: "mlm", preset: "mlm-mini", ...STEP_SETTINGS },
  { task: "causal-lm", preset: "llama-small", ...STEP_SETTINGS },
];

/** Where the data lives inside DATA_DIR (the bundle's data/ layout). */
export function dataPaths(dataDir: string): { tokenizer: string; train: string } {
  return { tokenizer: join(dataDir, "tokenizer"), train: join(dataDir, "shards", "train") };
}

/** Trainer options choosing the device: { accelerator: "cpu", executor: "ort" } records, XLA compares. */
export type DeviceChoice = Pick<TrainerOptions, "accelerator" | "executor" | "pjrtPlugin">;

export interface StepRun {
  readonly losses: number[];
  /** The device's id (gpu:0, xla-cpu:0, cpu:0). */
  readonly device: string;
  readonly compileSeconds: number;
}

/** Trains `t` for its steps on one device of `devices`: each step's loss, the device and the compile time. */
export async function runStepTask(t: StepTask, dataDir: string, devices: DeviceChoice): Promise<StepRun> {
  const paths = dataPaths(dataDir);
  const tokenizer = await k.loadTokenizer(paths.tokenizer);
  const train = await k.openDataset({
    files: paths.train,
    maxLength: t.maxLength,
    batchSize: t.batch,
    shuffle: true,
    seed: t.dataSeed,
    epochs: Infinity,
  });
  const outputDir = mkdtempSync(join(tmpdir(), `kiln-steps-${t.task}-`));
  try {
    const trainer = new Trainer({ outputDir, maxSteps: t.steps, seed: t.seed, logEvery: 1, progress: false, devices: 1, ...devices });
    const device = trainer.strategy.devices[0]!;
    // Whatever is made without naming a device lands here too: an XLA run never loads ONNX Runtime.
    k.setDefaultDevice(device);
    const optimizer = { learningRate: t.learningRate, weightDecay: t.weightDecay, warmupSteps: t.warmupSteps };
    // The masked LM masks its batches in the step; the causal LM's targets are its next tokens.
    const masking = { maskTokenId: tokenizer.maskId, vocabSize: tokenizer.vocabSize, specialIds: [...tokenizer.specialIds] };
    const result = await trainer.fit({
      model: k.createModel(k.presetConfig(t.preset, tokenizer, t.maxLength)),
      train,
      optimizer,
      ...(taskSpec(t.task).usesMasking ? { masking } : {}),
    });
    const losses = result.history.map((h) => h.loss!);
    if (losses.length !== t.steps)
      throw new Error(`${t.task} (${t.preset}) on ${device.id}: ${losses.length} step losses logged, expected ${t.steps}`);
    return { losses, device: device.id, compileSeconds: result.compileSeconds };
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}
