// The causal language models by the names `transformers` gives them: `new LlamaForCausalLM(config)`,
// `LlamaForCausalLM.fromPreset("llama-small", tokenizer)`, `await GPT2LMHeadModel.fromPretrained(dir)`.
// Each is the CausalLanguageModel that createCausalLM builds for its model_type, as a class.
import type * as k from "../core/index.js";
import type { Gpt2Config } from "./gpt2/config.js";
import type { LlamaConfig } from "./llama/config.js";
import {
  findModelSpec,
  presetConfig,
  type CausalConfig,
  type CausalModelType,
  type FamilyPresetName,
  type RuntimeString,
} from "./registry.js";
import type { PresetTokenizerIds } from "./spec.js";
import type { CausalForwardOptions, CausalLanguageModel, KvCache } from "./causal-lm.js";
import type { LlamaParams } from "./llama/model.js";
import type { Gpt2Params } from "./gpt2/model.js";
import { createCausalLM } from "./create.js";
import { loadModel, type PretrainedCausalModel } from "./pretrained.js";

const architecture = (type: CausalModelType) => findModelSpec(type)!.architecture;

abstract class ForCausalLM<P extends object> implements CausalLanguageModel<P> {
  declare readonly config: CausalConfig;
  declare readonly maxLength: number;
  declare readonly tiedWeights: Readonly<Record<string, string>>;
  declare readonly baseModelPrefix: string;
  declare init: (key: k.Array) => P;
  declare hidden: (params: P, inputIds: k.Array, attentionMask: k.Array, opts?: CausalForwardOptions) => k.Array;
  declare lmHead: (params: P, hidden: k.Array) => k.Array;
  declare initCache: (batch: number, capacity: number, dtype?: k.DType) => KvCache;
  declare forwardCached: CausalLanguageModel<P>["forwardCached"];

  protected constructor(config: CausalConfig, type: CausalModelType) {
    if (config.model_type !== type)
      throw new Error(
        `${architecture(type)} needs a config with model_type "${type}", got "${config.model_type}" (use createCausalLM for either)`,
      );
    Object.assign(this, createCausalLM(config));
  }
}

/** A loaded model as class M, with its parameters typed as M's (loadModel lays them out as M's init does). */
type PretrainedAs<M> = PretrainedCausalModel & { model: M; params: M extends CausalLanguageModel<infer P> ? P : never };

async function pretrainedAs<M extends CausalLanguageModel<any>>(
  dir: string,
  device: k.Device | undefined,
  type: CausalModelType,
  make: (c: CausalConfig) => M,
): Promise<PretrainedAs<M>> {
  const loaded = await loadModel(dir, { task: "causal-lm", ...(device ? { device } : {}) });
  if (loaded.model.config.model_type !== type)
    throw new Error(
      `${dir}/config.json: model_type "${loaded.model.config.model_type}" is not "${type}" ` +
        `(${architecture(type)}.fromPretrained); load it with loadModel`,
    );
  return { ...loaded, model: make(loaded.model.config as CausalConfig) } as PretrainedAs<M>;
}

function presetOf(name: string, type: CausalModelType, tokenizer: PresetTokenizerIds, maxLength?: number): CausalConfig {
  const c = presetConfig(name as string, tokenizer, maxLength);
  if (c.model_type !== type) throw new Error(`preset "${name}" is a ${c.model_type} model, not ${type}`);
  return c as CausalConfig;
}

/** Llama with its language-model head (transformers' LlamaForCausalLM). */
export class LlamaForCausalLM extends ForCausalLM<LlamaParams> {
  declare readonly config: LlamaConfig;
  constructor(config: LlamaConfig) {
    super(config, "llama");
  }
  /** A preset's architecture ("llama-tiny", "llama-small", "smollm-135m") sized to the tokenizer's vocabulary and ids. */
  static fromPreset<S extends string>(
    name: S & (FamilyPresetName<"llama"> | RuntimeString<S>),
    tokenizer: PresetTokenizerIds,
    maxLength?: number,
  ): LlamaForCausalLM {
    return new LlamaForCausalLM(presetOf(name, "llama", tokenizer, maxLength) as LlamaConfig);
  }
  /** A model directory (Kiln's or transformers' save_pretrained) with its weights. */
  static fromPretrained(dir: string, device?: k.Device): Promise<PretrainedAs<LlamaForCausalLM>> {
    return pretrainedAs(dir, device, "llama", (c) => new LlamaForCausalLM(c as LlamaConfig));
  }
}

/** GPT-2 with its language-model head (transformers' GPT2LMHeadModel). */
export class GPT2LMHeadModel extends ForCausalLM<Gpt2Params> {
  declare readonly config: Gpt2Config;
  constructor(config: Gpt2Config) {
    super(config, "gpt2");
  }
  /** A preset's architecture ("gpt2-tiny", "gpt2-small", "gpt2-124m") sized to the tokenizer's vocabulary and ids. */
  static fromPreset<S extends string>(
    name: S & (FamilyPresetName<"gpt2"> | RuntimeString<S>),
    tokenizer: PresetTokenizerIds,
    maxLength?: number,
  ): GPT2LMHeadModel {
    return new GPT2LMHeadModel(presetOf(name, "gpt2", tokenizer, maxLength) as Gpt2Config);
  }
  /** A model directory (Kiln's or transformers' save_pretrained) with its weights. */
  static fromPretrained(dir: string, device?: k.Device): Promise<PretrainedAs<GPT2LMHeadModel>> {
    return pretrainedAs(dir, device, "gpt2", (c) => new GPT2LMHeadModel(c as Gpt2Config));
  }
}
