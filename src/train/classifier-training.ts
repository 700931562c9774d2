// What a classifier's fine-tuning run opens before it trains (kiln train --task sequence-classification):
// the labelled data prepared by `kiln data prepare --task classification` (its classes from
// prepare.json, made with the run's tokenizer), and the classifier, started from a pretrained directory
// with a head for those classes (a base model's head is initialized and named in a notice).
import * as k from "../core/index.js";
import { OptionError } from "../core/option-error.js";
import { openClassificationDataset, type ClassificationDataset } from "../data/pipeline/classification-dataset.js";
import { checkDataTokenizer } from "../data/prepare/manifest.js";
import { loadModel } from "../models/pretrained.js";
import { loadTokenizer } from "../text/index.js";
import { checkSameTokenizer } from "./model-source.js";
import type { TrainingModel } from "./training-model.js";

/** Settings of openClassifierData. */
export interface ClassifierDataSettings {
  /** The prepared training split (directories, globs or files). */
  train: string[];
  eval?: string[] | undefined;
  /** Rows of one optimizer step over every replica of every process. */
  globalBatch: number;
  seed: number;
  shuffleBuffer: number;
  /** The tokenizer the data must have been prepared with. */
  tokenizerDir: string;
}

/** The opened labelled data and its classes (prepare.json's id2label, in id order). */
export interface ClassifierData {
  train: ClassificationDataset;
  eval: ClassificationDataset | undefined;
  labels: readonly string[];
}

export async function openClassifierData(s: ClassifierDataSettings): Promise<ClassifierData> {
  const train = await openClassificationDataset({ files: s.train, batchSize: s.globalBatch, seed: s.seed, shuffleBuffer: s.shuffleBuffer });
  const evalData = s.eval ? await openClassificationDataset({ files: s.eval, batchSize: s.globalBatch, shuffle: false }) : undefined;
  for (const data of [train, evalData]) if (data) await checkDataTokenizer(data.files, s.tokenizerDir);
  if (evalData && evalData.labels.join("\n") !== train.labels.join("\n"))
    throw new OptionError({
      where: "the data of a training run",
      option: "eval",
      value: s.eval,
      why: `has the classes ${evalData.labels.join(", ")} (by id), but the training data has ${train.labels.join(", ")}`,
      fix: "Prepare the evaluation split with the training split's labels (labels: the train prepare.json's id2label in id order)",
    });
  return { train, eval: evalData, labels: train.labels };
}

/** Settings of classifierTrainingModel. */
export interface ClassifierModelSettings {
  /** A model directory: a masked or causal LM (a head is added), or a classifier. */
  initFrom: string;
  tokenizerDir: string;
  /** The data's classes, in id order. */
  labels: readonly string[];
  /** The number of classes asked for; must be the data's (default: it). */
  numLabels?: number | undefined;
  seed: number;
  device: k.Device;
}

/** The classifier to fine-tune, its starting weights, what loading noted (the new head) and its parameter count. */
export async function classifierTrainingModel(s: ClassifierModelSettings): Promise<TrainingModel> {
  if (s.numLabels !== undefined && s.numLabels !== s.labels.length)
    throw new OptionError({
      where: "the model of a training run",
      option: "numLabels",
      value: s.numLabels,
      why: `differs from the data's ${s.labels.length} classes (${s.labels.join(", ")}, from its prepare.json)`,
      fix: `Leave numLabels out to take the data's ${s.labels.length} classes, or prepare the data with the classes meant`,
    });
  const tokenizer = await loadTokenizer(s.tokenizerDir);
  await checkSameTokenizer(s.initFrom, s.tokenizerDir, tokenizer);
  const loaded = await loadModel(s.initFrom, {
    task: "sequence-classification",
    labels: s.labels,
    missingHead: "init",
    seed: s.seed,
    device: s.device,
  });
  const vocab = loaded.model.config.vocab_size;
  if (vocab !== tokenizer.vocabSize)
    throw new OptionError({
      where: "the model of a training run",
      option: "initFrom",
      value: s.initFrom,
      why: `has vocab_size ${vocab}, but the tokenizer (${s.tokenizerDir}) has ${tokenizer.vocabSize} pieces`,
      fix: "Pass the tokenizer the model was trained with (and prepare the data with it)",
    });
  const parameterCount = k.leaves<k.Array>(loaded.params).reduce((n, a) => n + a.size, 0);
  return { model: loaded.model, params: loaded.params, notices: loaded.notices, parameterCount };
}
