// Llama (transformers' LlamaForCausalLM) and its presets.
import { causalPresetIds } from "../causal-config.js";
import type { CausalLanguageModel } from "../causal-lm.js";
import { causalLmKind } from "../causal-lm-kind.js";
import type { ModelSpec } from "../spec.js";
import { LLAMA_PRESETS, validateLlamaConfig, type LlamaConfig } from "./config.js";
import { createLlama } from "./model.js";

export const llamaSpec = {
  modelType: "llama",
  task: "causal-lm",
  kind: causalLmKind,
  architecture: "LlamaForCausalLM",
  baseArchitecture: "LlamaModel",
  positionsField: "max_position_embeddings",
  validate: validateLlamaConfig,
  presets: LLAMA_PRESETS,
  presetConfig: (p, tok, len, where) => validateLlamaConfig({ ...p.fields, ...causalPresetIds(tok), max_position_embeddings: len }, where),
  create: (c) => createLlama(c),
  maxLength: (c) => c.max_position_embeddings,
  layersAndWidth: (c) => ({ layers: c.num_hidden_layers, width: c.hidden_size }),
  tiesHead: (c) => c.tie_word_embeddings,
} satisfies ModelSpec<LlamaConfig, CausalLanguageModel, "causal-lm">;
