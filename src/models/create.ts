// The model a Hugging Face config describes (its model_type picks the architecture).
import type { MlmConfig } from "./config.js";
import type { MaskedLanguageModel, MaskedLMInit } from "./masked-lm.js";
import type { CausalLanguageModel } from "./causal-lm.js";
import { isCausalConfig, type CausalConfig, type ModelConfig } from "./causal-config.js";
import { createRoberta } from "./roberta.js";
import { createBert } from "./bert.js";
import { createLlama } from "./llama.js";
import { createGpt2 } from "./gpt2.js";

export function createMaskedLM(config: MlmConfig, init: MaskedLMInit = {}): MaskedLanguageModel {
  return config.model_type === "roberta" ? createRoberta(config, init) : createBert(config, init);
}

export function createCausalLM(config: CausalConfig): CausalLanguageModel {
  switch (config.model_type) {
    case "llama":
      return createLlama(config);
    case "gpt2":
      return createGpt2(config);
    default:
      throw new Error(
        `createCausalLM: model_type ${JSON.stringify((config as { model_type: unknown }).model_type)} is not a causal LM (llama, gpt2)`,
      );
  }
}

/** Either kind of model: a causal LM for llama/gpt2 configs, a masked LM (started as `init` says) for roberta/bert. */
export function createModel(config: MlmConfig, init?: MaskedLMInit): MaskedLanguageModel;
export function createModel(config: CausalConfig): CausalLanguageModel;
export function createModel(config: ModelConfig, init?: MaskedLMInit): MaskedLanguageModel | CausalLanguageModel;
export function createModel(config: ModelConfig, init: MaskedLMInit = {}): MaskedLanguageModel | CausalLanguageModel {
  return isCausalConfig(config) ? createCausalLM(config) : createMaskedLM(config, init);
}
