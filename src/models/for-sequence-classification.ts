// The sequence classifiers by the names `transformers` gives them: `new BertForSequenceClassification(config)`,
// `await RobertaForSequenceClassification.fromPretrained(dir, { labels: ["neg", "pos"] })`. Each is the
// SequenceClassifier that createSequenceClassifier builds for its model_type, as a class.
import type * as k from "../core/index.js";
import type { Params } from "./language-model.js";
import { loadModel, type LoadModelOptions } from "./pretrained.js";
import { CLASSIFIER_ARCHITECTURES, type ClassifierConfig } from "./classification/config.js";
import { createSequenceClassifier, type ClassifierForwardOptions, type SequenceClassifier } from "./classification/model.js";
import type { PretrainedClassifier } from "./classification/load.js";

abstract class ForSequenceClassification implements SequenceClassifier {
  declare readonly task: "sequence-classification";
  declare readonly config: ClassifierConfig;
  declare readonly architecture: string;
  declare readonly headNames: readonly string[];
  declare readonly tiedWeights: Readonly<Record<string, string>>;
  declare readonly baseModelPrefix: string;
  declare init: (key: k.Array) => Params;
  declare logits: (params: Params, inputIds: k.Array, attentionMask: k.Array, opts?: ClassifierForwardOptions) => k.Array;

  protected constructor(config: ClassifierConfig, type: string) {
    const name = CLASSIFIER_ARCHITECTURES[type]!;
    if (config.model_type !== type)
      throw new Error(
        `${name} needs a config with model_type "${type}", got "${config.model_type}" (use createSequenceClassifier for any)`,
      );
    Object.assign(this, createSequenceClassifier(config));
  }
}

/** A loaded classifier as class M. */
type PretrainedAs<M> = PretrainedClassifier & { model: M };

async function pretrainedAs<M extends SequenceClassifier>(
  dir: string,
  opts: Omit<LoadModelOptions, "task">,
  type: string,
  make: (c: ClassifierConfig) => M,
): Promise<PretrainedAs<M>> {
  const loaded = await loadModel(dir, { ...opts, task: "sequence-classification" });
  if (loaded.model.config.model_type !== type)
    throw new Error(
      `${dir}/config.json: model_type "${loaded.model.config.model_type}" is not "${type}" ` +
        `(${CLASSIFIER_ARCHITECTURES[type]}.fromPretrained); load it with loadModel(dir, { task: "sequence-classification" })`,
    );
  return { ...loaded, model: make(loaded.model.config) };
}

/** BERT with its pooler and classifier (transformers' BertForSequenceClassification). */
export class BertForSequenceClassification extends ForSequenceClassification {
  constructor(config: ClassifierConfig) {
    super(config, "bert");
  }
  /** A classifier's directory, or a base model's with a fresh head (labels, numLabels and problemType set its classes). */
  static fromPretrained(dir: string, opts: Omit<LoadModelOptions, "task"> = {}): Promise<PretrainedAs<BertForSequenceClassification>> {
    return pretrainedAs(dir, opts, "bert", (c) => new BertForSequenceClassification(c));
  }
}

/** RoBERTa with its classification head on <s> (transformers' RobertaForSequenceClassification). */
export class RobertaForSequenceClassification extends ForSequenceClassification {
  constructor(config: ClassifierConfig) {
    super(config, "roberta");
  }
  /** A classifier's directory, or a base model's with a fresh head (labels, numLabels and problemType set its classes). */
  static fromPretrained(dir: string, opts: Omit<LoadModelOptions, "task"> = {}): Promise<PretrainedAs<RobertaForSequenceClassification>> {
    return pretrainedAs(dir, opts, "roberta", (c) => new RobertaForSequenceClassification(c));
  }
}

/** Llama with a score head on each row's last real token (transformers' LlamaForSequenceClassification). */
export class LlamaForSequenceClassification extends ForSequenceClassification {
  constructor(config: ClassifierConfig) {
    super(config, "llama");
  }
  /** A classifier's directory, or a base model's with a fresh head (labels, numLabels and problemType set its classes). */
  static fromPretrained(dir: string, opts: Omit<LoadModelOptions, "task"> = {}): Promise<PretrainedAs<LlamaForSequenceClassification>> {
    return pretrainedAs(dir, opts, "llama", (c) => new LlamaForSequenceClassification(c));
  }
}

/** GPT-2 with a score head on each row's last real token (transformers' GPT2ForSequenceClassification). */
export class GPT2ForSequenceClassification extends ForSequenceClassification {
  constructor(config: ClassifierConfig) {
    super(config, "gpt2");
  }
  /** A classifier's directory, or a base model's with a fresh head (labels, numLabels and problemType set its classes). */
  static fromPretrained(dir: string, opts: Omit<LoadModelOptions, "task"> = {}): Promise<PretrainedAs<GPT2ForSequenceClassification>> {
    return pretrainedAs(dir, opts, "gpt2", (c) => new GPT2ForSequenceClassification(c));
  }
}
