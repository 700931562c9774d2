// The masked language model a Hugging Face config describes (its model_type picks the architecture).
import type { MlmConfig } from "./config.js";
import type { MaskedLanguageModel } from "./masked-lm.js";
import { createRoberta } from "./roberta.js";
import { createBert } from "./bert.js";

export function createMaskedLM(config: MlmConfig): MaskedLanguageModel {
  return config.model_type === "roberta" ? createRoberta(config) : createBert(config);
}
