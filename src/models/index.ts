// Masked language models built from a Hugging Face config.
export { createMaskedLM } from "./create.js";
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
