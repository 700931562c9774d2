// A tiny but complete training setup for trainer tests: random-token shards on disk, a 2-layer RoBERTa
// (MLM) or the llama-tiny preset (causal LM, `task: "causal-lm"`), and fit() with per-step logging. Also
// runnable as a script (for kill-and-resume tests):
//   node dist/test/helpers/tiny-training.js DATA_DIR OUT_DIR MAX_STEPS [--resume] [--trainer JSON] [--task causal-lm]
// (--trainer: Trainer options over the defaults, e.g. '{"executor":"xla","accelerator":"cpu","devices":1}')
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { writeRecords } from "../../src/data/tfrecord/files.js";
import { encodeExample } from "../../src/data/example/example.js";
import { openDataset } from "../../src/data/pipeline/dataset.js";
import { presetConfig, createCausalLM, createMaskedLM, validateConfig } from "../../src/models/index.js";
import { Trainer, type MaskingSettings, type OptimizerSettings, type TrainerOptions } from "../../src/train/trainer.js";
import { ModelCheckpoint, type Callback } from "../../src/train/callbacks.js";
import type { TrainingTask } from "../../src/train/objectives/objective.js";
import { rng } from "./random.js";

export const TINY = { vocab: 64, length: 16, batch: 8 };

/** Two shards of random token rows ([CLS] … [SEP], some padded), named as data prepare names them. */
export async function writeTinyShards(dir: string, records = 48): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const r = rng(11);
  const rows = Array.from({ length: records }, () => {
    const len = 6 + Math.floor(r() * (TINY.length - 6));
    const ids = Array.from({ length: TINY.length }, (_, p) =>
      p === 0 ? 0 : p === len - 1 ? 1 : p < len ? 5 + Math.floor(r() * (TINY.vocab - 5)) : 3,
    );
    return encodeExample({
      input_ids: { kind: "int64", values: ids },
      attention_mask: { kind: "int64", values: ids.map((_, p) => (p < len ? 1 : 0)) },
    });
  });
  const half = records / 2;
  await writeRecords(join(dir, `dataset-0-${half}.tfrecord`), rows.slice(0, half));
  await writeRecords(join(dir, `dataset-1-${records - half}.tfrecord`), rows.slice(half));
}

export const tinyConfig = () =>
  validateConfig(
    {
      model_type: "roberta",
      vocab_size: TINY.vocab,
      hidden_size: 16,
      num_hidden_layers: 2,
      num_attention_heads: 2,
      intermediate_size: 32,
      max_position_embeddings: TINY.length + 4,
      type_vocab_size: 1,
      pad_token_id: 3,
      layer_norm_eps: 1e-5,
    },
    "tiny config",
  );

/** The llama-tiny preset (width 16, 2 layers, grouped-query attention) for the tiny shards' vocabulary and length. */
export const tinyLlamaConfig = () => presetConfig("llama-tiny", { vocabSize: TINY.vocab, padId: 3, clsId: 0, sepId: 1 }, TINY.length);

export interface TinyOptions {
  /** "mlm" (default: the 2-layer RoBERTa) or "causal-lm" (llama-tiny). */
  task?: TrainingTask;
  resume?: boolean;
  callbacks?: Callback[];
  evalDir?: string;
  /** Global batch (default 8). */
  batch?: number;
  trainer?: Partial<TrainerOptions>;
  /** Dropout on (the default) or off. */
  dropout?: boolean;
  /** Optimizer settings over the defaults (learning rate 3e-3, weight decay 0.01, warmup 2). */
  optimizer?: Partial<OptimizerSettings>;
  /** MLM masking settings over the defaults (mlmProbability 0.25; the evaluation's rate follows it). */
  masking?: Partial<MaskingSettings>;
  /** The MLM head's room for labelled positions per micro-batch (default: the trainer's). */
  labelCapacity?: number;
  /** A tokenizer directory whose files the checkpoints and the final model carry. */
  tokenizerDir?: string;
}

export async function trainTiny(dataDir: string, outDir: string, maxSteps: number, opts: TinyOptions = {}) {
  const common = { maxLength: TINY.length, batchSize: opts.batch ?? TINY.batch };
  const train = await openDataset({ files: dataDir, ...common, shuffle: true, seed: 5, epochs: Infinity, shuffleBuffer: 64 });
  const evalData = opts.evalDir ? await openDataset({ files: opts.evalDir, ...common, shuffle: false }) : undefined;
  const trainer = new Trainer({
    outputDir: outDir,
    maxSteps,
    seed: 3,
    logEvery: 1,
    resume: opts.resume ?? false,
    progress: false,
    keepCheckpoints: 2,
    callbacks: [new ModelCheckpoint({ everySteps: 2 }), ...(opts.callbacks ?? [])],
    ...opts.trainer,
  });
  const fitArgs = {
    train,
    ...(evalData ? { eval: evalData } : {}),
    optimizer: { learningRate: 3e-3, weightDecay: 0.01, warmupSteps: 2, ...opts.optimizer },
    ...(opts.tokenizerDir ? { tokenizerDir: opts.tokenizerDir } : {}),
  };
  if (opts.task === "causal-lm") return trainer.fit({ model: createCausalLM(tinyLlamaConfig()), ...fitArgs });
  const config = tinyConfig();
  if (opts.dropout === false) Object.assign(config, { hidden_dropout_prob: 0, attention_probs_dropout_prob: 0 });
  return trainer.fit({
    model: createMaskedLM(config),
    ...fitArgs,
    masking: {
      maskTokenId: 4,
      vocabSize: TINY.vocab,
      specialIds: [0, 1, 2, 3, 4],
      mlmProbability: 0.25,
      ...opts.masking,
    },
    ...(opts.labelCapacity !== undefined ? { labelCapacity: opts.labelCapacity } : {}),
  });
}

if (process.argv[1]?.endsWith("tiny-training.js") && process.argv.length >= 5) {
  const [dataDir, outDir, steps] = process.argv.slice(2);
  const report: Callback = { onStepEnd: (t) => void process.stdout.write(`step ${t.globalStep}\n`) };
  const trainerAt = process.argv.indexOf("--trainer");
  const trainer = trainerAt > 0 ? (JSON.parse(process.argv[trainerAt + 1]!) as Partial<TrainerOptions>) : {};
  const taskAt = process.argv.indexOf("--task");
  const task = taskAt > 0 ? (process.argv[taskAt + 1] as TrainingTask) : "mlm";
  await trainTiny(dataDir!, outDir!, Number(steps), { resume: process.argv.includes("--resume"), callbacks: [report], trainer, task });
  void k;
}
