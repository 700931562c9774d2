// The masked language models by the names `transformers` gives them: `new RobertaForMaskedLM(config)`,
// `RobertaForMaskedLM.fromPreset("mlm-small", tokenizer)`, `await RobertaForMaskedLM.fromPretrained(dir)`.
// Each is the MaskedLanguageModel that createMaskedLM builds for its model_type, as a class.
import type * as k from "../core/index.js";
import type { MlmConfig, ModelType } from "./config.js";
import { presetConfig, type FamilyPresetName, type RuntimeString } from "./registry.js";
import type { PresetTokenizerIds } from "./spec.js";
import type { MaskedLanguageModel, ForwardOptions } from "./masked-lm.js";
import type { RobertaParams } from "./roberta/model.js";
import type { BertParams } from "./bert/model.js";
import { createMaskedLM } from "./create.js";
import { loadModel, type LoadModelOptions, type PretrainedModel } from "./pretrained.js";

abstract class ForMaskedLM<P extends object> implements MaskedLanguageModel<P> {
  declare readonly config: MlmConfig;
  declare readonly tiedWeights: Readonly<Record<string, string>>;
  declare readonly baseModelPrefix: string;
  declare init: (key: k.Array) => P;
  declare hidden: (params: P, inputIds: k.Array, attentionMask: k.Array, opts?: ForwardOptions) => k.Array;
  declare lmHead: (params: P, hidden: k.Array) => k.Array;

  protected constructor(config: MlmConfig, type: ModelType, className: string) {
    if (config.model_type !== type)
      throw new Error(`${className} needs a config with model_type "${type}", got "${config.model_type}" (use createMaskedLM for either)`);
    Object.assign(this, createMaskedLM(config));
  }
}

/** A loaded model as class M, with its parameters typed as M's (loadModel lays them out as M's init does). */
type PretrainedAs<M> = PretrainedModel & { model: M; params: M extends MaskedLanguageModel<infer P> ? P : never };

async function pretrainedAs<M extends MaskedLanguageModel<any>>(
  dir: string,
  opts: LoadModelOptions,
  make: (c: MlmConfig) => M,
): Promise<PretrainedAs<M>> {
  const loaded = await loadModel(dir, { ...opts, task: "mlm" });
  return { ...loaded, model: make(loaded.model.config) } as PretrainedAs<M>;
}

/** RoBERTa with its masked-LM head (transformers' RobertaForMaskedLM). */
export class RobertaForMaskedLM extends ForMaskedLM<RobertaParams> {
  constructor(config: MlmConfig) {
    super(config, "roberta", "RobertaForMaskedLM");
  }
  /** A preset's architecture ("mlm-small", "roberta-base", …) sized to the tokenizer's vocabulary and ids. */
  static fromPreset<S extends string>(
    name: S & (FamilyPresetName<"roberta"> | RuntimeString<S>),
    tokenizer: PresetTokenizerIds,
    maxLength?: number,
  ): RobertaForMaskedLM {
    return new RobertaForMaskedLM(presetConfig(name as string, tokenizer, maxLength) as MlmConfig);
  }
  /** A model directory (Kiln's or transformers' save_pretrained) with its weights. */
  static fromPretrained(dir: string, opts: LoadModelOptions = {}): Promise<PretrainedAs<RobertaForMaskedLM>> {
    return pretrainedAs(dir, opts, (c) => new RobertaForMaskedLM(c));
  }
}

/** BERT with its masked-LM head (transformers' BertForMaskedLM). */
export class BertForMaskedLM extends ForMaskedLM<BertParams> {
  constructor(config: MlmConfig) {
    super(config, "bert", "BertForMaskedLM");
  }
  /** A model directory (Kiln's or transformers' save_pretrained) with its weights. */
  static fromPretrained(dir: string, opts: LoadModelOptions = {}): Promise<PretrainedAs<BertForMaskedLM>> {
    return pretrainedAs(dir, opts, (c) => new BertForMaskedLM(c));
  }
}
