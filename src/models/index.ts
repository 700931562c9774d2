// Masked and causal language models built from a Hugging Face config, one family per folder, listed in
// the registry.
export { createMaskedLM, createCausalLM, createModel } from "./create.js";
export * from "./config.js";
export * from "./masked-lm.js";
export { createRoberta, robertaPositionIds, type RobertaParams } from "./roberta/model.js";
export { createBert, type BertParams } from "./bert/model.js";
export { createLlama, type LlamaParams } from "./llama/model.js";
export { createGpt2, type Gpt2Params } from "./gpt2/model.js";
export type { CausalLanguageModel, CausalLmConfig, CausalForwardOptions, KvCache } from "./causal-lm.js";
export type { LanguageModel, BaseModelConfig } from "./language-model.js";
export type { ModelSpec, ModelTask, Preset, PresetTokenizerIds } from "./spec.js";
export { validateLlamaConfig, type LlamaConfig, type RopeParameters } from "./llama/config.js";
export { validateGpt2Config, type Gpt2Config } from "./gpt2/config.js";
export type { CausalTokenizerIds } from "./causal-config.js";
export {
  MODEL_SPECS,
  findModelSpec,
  modelSpec,
  modelTask,
  modelTypes,
  isCausalConfig,
  validateCausalConfig,
  validateModelConfig,
  readModelConfig,
  maxLengthOf,
  presetConfig,
  presetNames,
  presetTask,
  type CausalConfig,
  type ModelConfig,
  type PresetName,
  type FamilyPresetName,
  type RuntimeString,
  type PresetConfig,
  type TaskConfig,
  type TaskModel,
} from "./registry.js";
export { RobertaForMaskedLM, BertForMaskedLM } from "./for-masked-lm.js";
export { LlamaForCausalLM, GPT2LMHeadModel } from "./for-causal-lm.js";
export {
  saveModel,
  loadModel,
  paramsFromTensors,
  parameterLayout,
  namedTensors,
  TRANSFORMERS_FORMAT_VERSION,
  type LoadedModel,
  type LoadModelOptions,
  type LoadPretrainedOptions,
  type PretrainedModel,
  type PretrainedCausalModel,
  type LoadTask,
} from "./pretrained.js";
export { CorruptFileError } from "./file-digests.js";
export { createSequenceClassifier, type SequenceClassifier, type ClassifierForwardOptions } from "./classification/model.js";
export {
  classifierConfig,
  CLASSIFIER_ARCHITECTURES,
  PROBLEM_TYPES,
  type ClassifierConfig,
  type ClassifierLabels,
  type ProblemType,
} from "./classification/config.js";
export type { PretrainedClassifier } from "./classification/load.js";
export {
  BertForSequenceClassification,
  RobertaForSequenceClassification,
  LlamaForSequenceClassification,
  GPT2ForSequenceClassification,
} from "./for-sequence-classification.js";
