// BERT (transformers' BertForMaskedLM); Kiln ships no BERT preset.
import { maskedPresetConfig, maxSequenceLength, validateConfig, type MlmConfig } from "../config.js";
import type { MaskedLanguageModel } from "../masked-lm.js";
import { maskedLmKind } from "../masked-lm-kind.js";
import type { ModelSpec } from "../spec.js";
import { createBert } from "./model.js";

export const bertSpec = {
  modelType: "bert",
  task: "mlm",
  kind: maskedLmKind,
  architecture: "BertForMaskedLM",
  baseArchitecture: "BertModel",
  positionsField: "max_position_embeddings",
  validate: validateConfig,
  presets: {},
  presetConfig: (p, tok, len, where) => maskedPresetConfig(p.fields, tok, len, where),
  create: createBert,
  maxLength: maxSequenceLength,
  layersAndWidth: (c) => ({ layers: c.num_hidden_layers, width: c.hidden_size }),
  tiesHead: () => true,
} satisfies ModelSpec<MlmConfig, MaskedLanguageModel, "mlm">;
