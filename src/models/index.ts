// Masked language models built from a Hugging Face config.
import type { MlmConfig } from "./config.js";
import type { MaskedLanguageModel } from "./masked-lm.js";
import { createRoberta } from "./roberta.js";
import { createBert } from "./bert.js";

export function createMaskedLM(config: MlmConfig): MaskedLanguageModel {
  return config.model_type === "roberta" ? createRoberta(config) : createBert(config);
}

export * from "./config.js";
export * from "./masked-lm.js";
export { createRoberta, robertaPositionIds } from "./roberta.js";
export { createBert } from "./bert.js";
export { RobertaForMaskedLM, BertForMaskedLM } from "./for-masked-lm.js";
export {
  saveModel,
  loadModel,
  loadPretrained,
  paramsFromTensors,
  parameterLayout,
  namedTensors,
  TRANSFORMERS_FORMAT_VERSION,
  type PretrainedModel,
  type LoadPretrainedOptions,
} from "./pretrained.js";
