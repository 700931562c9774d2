// The model a Hugging Face config describes (its model_type picks the family in the registry).
import type { MlmConfig } from "./config.js";
import type { MaskedLanguageModel, MaskedLMInit } from "./masked-lm.js";
import type { CausalLanguageModel } from "./causal-lm.js";
import type { LanguageModel } from "./language-model.js";
import { modelSpec, modelTypes, type CausalConfig, type ModelConfig, type TaskConfig, type TaskModel } from "./registry.js";

/** The model a config describes (a masked LM is started as `init` says; a causal LM takes no init). */
export function createModel<C extends ModelConfig>(
  config: C,
  init?: MaskedLMInit,
): C extends TaskConfig<"causal-lm"> ? TaskModel<"causal-lm"> : TaskModel<"mlm">;
export function createModel(config: ModelConfig, init: MaskedLMInit = {}): LanguageModel {
  return modelSpec(config).create(config, init);
}

/** A masked LM (RoBERTa or BERT, by `config.model_type`). */
export function createMaskedLM(config: MlmConfig, init: MaskedLMInit = {}): MaskedLanguageModel {
  return createModel(config, init);
}

/** A causal LM (Llama or GPT-2, by `config.model_type`); an error for a masked LM's config. */
export function createCausalLM(config: CausalConfig): CausalLanguageModel {
  if (modelSpec(config).task !== "causal-lm")
    throw new Error(
      `createCausalLM: model_type ${JSON.stringify(config.model_type)} is not a causal LM (${modelTypes("causal-lm").join(", ")})`,
    );
  return createModel(config);
}
