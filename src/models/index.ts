// Masked and causal language models built from a Hugging Face config.
export { createMaskedLM, createCausalLM, createModel } from "./create.js";
export * from "./config.js";
export * from "./masked-lm.js";
export { createRoberta, robertaPositionIds } from "./roberta.js";
export { createBert } from "./bert.js";
export { createLlama } from "./llama.js";
export { createGpt2 } from "./gpt2.js";
export type { CausalLanguageModel, CausalLmConfig, CausalForwardOptions, KvCache } from "./causal-lm.js";
export type { LanguageModel, BaseModelConfig } from "./language-model.js";
export {
  isCausalConfig,
  validateLlamaConfig,
  validateGpt2Config,
  validateCausalConfig,
  validateModelConfig,
  readModelConfig,
  causalPresetConfig,
  causalMaxLength,
  CAUSAL_PRESET_NAMES,
  type LlamaConfig,
  type Gpt2Config,
  type CausalConfig,
  type ModelConfig,
  type RopeParameters,
  type CausalTokenizerIds,
} from "./causal-config.js";
export { RobertaForMaskedLM, BertForMaskedLM } from "./for-masked-lm.js";
export { LlamaForCausalLM, GPT2LMHeadModel } from "./for-causal-lm.js";
export {
  saveModel,
  loadModel,
  loadPretrained,
  loadCausalModel,
  paramsFromTensors,
  parameterLayout,
  namedTensors,
  TRANSFORMERS_FORMAT_VERSION,
  type PretrainedModel,
  type LoadPretrainedOptions,
  type PretrainedCausalModel,
} from "./pretrained.js";
