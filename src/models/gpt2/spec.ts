// GPT-2 (transformers' GPT2LMHeadModel) and its presets.
import { causalPresetIds } from "../causal-config.js";
import type { CausalLanguageModel } from "../causal-lm.js";
import { causalLmKind } from "../causal-lm-kind.js";
import type { ModelSpec } from "../spec.js";
import { GPT2_PRESETS, validateGpt2Config, type Gpt2Config } from "./config.js";
import { createGpt2 } from "./model.js";

export const gpt2Spec = {
  modelType: "gpt2",
  task: "causal-lm",
  kind: causalLmKind,
  architecture: "GPT2LMHeadModel",
  baseArchitecture: "GPT2Model",
  positionsField: "n_positions",
  validate: validateGpt2Config,
  presets: GPT2_PRESETS,
  presetConfig: (p, tok, len, where) => validateGpt2Config({ ...p.fields, ...causalPresetIds(tok), n_positions: len }, where),
  create: (c) => createGpt2(c),
  maxLength: (c) => c.n_positions,
  layersAndWidth: (c) => ({ layers: c.n_layer, width: c.n_embd }),
  tiesHead: (c) => c.tie_word_embeddings,
} satisfies ModelSpec<Gpt2Config, CausalLanguageModel, "causal-lm">;
