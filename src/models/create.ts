// The model a Hugging Face config describes (its model_type picks the family in the registry).
import type { MlmConfig } from "./config.js";
import type { MaskedLanguageModel, MaskedLMInit } from "./masked-lm.js";
import type { CausalLanguageModel } from "./causal-lm.js";
import type { LanguageModel } from "./language-model.js";
import { checkForwardInputs, type ForwardCheck } from "./check-inputs.js";
import { modelSpec, modelTypes, type CausalConfig, type ModelConfig, type TaskConfig, type TaskModel } from "./registry.js";

/** The model a config describes (a masked LM is started as `init` says; a causal LM takes no init). */
export function createModel<C extends ModelConfig>(
  config: C,
  init?: MaskedLMInit,
): C extends TaskConfig<"causal-lm"> ? TaskModel<"causal-lm"> : TaskModel<"mlm">;
export function createModel(config: ModelConfig, init: MaskedLMInit = {}): LanguageModel {
  const spec = modelSpec(config);
  const model = spec.create(config, init) as LanguageModel & { hidden: (...args: unknown[]) => unknown };
  // Every forward pass the user calls checks its arguments first (check-inputs.ts); the check runs at
  // trace time under jit, so a compiled step pays nothing for it.
  const hidden = model.hidden;
  const positions = spec.positionsField;
  const check: ForwardCheck = {
    where: `${spec.architecture}.hidden`,
    maxLength: spec.maxLength(config),
    limitSource:
      `config ${positions} ${String(config[positions])}` +
      (config.model_type === "roberta" ? `, counted from pad_token_id ${config.pad_token_id} + 1` : ""),
    causal: spec.kind.causal,
  };
  model.hidden = (params, inputIds, attentionMask, opts) => {
    checkForwardInputs(check, params, inputIds, attentionMask, opts);
    return hidden(params, inputIds, attentionMask, opts);
  };
  return model;
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
