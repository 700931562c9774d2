// Hugging Face `config.json` for the decoder-only models (Llama, GPT-2): validated with errors that
// name the file and field, filled with transformers' own defaults where a field is absent, and the
// presets Kiln trains. readModelConfig reads any supported config.json and dispatches on model_type.
import type { CausalLmConfig } from "./causal-lm.js";
import { readJsonObject, validateConfig, type MlmConfig } from "./config.js";

export { readJsonObject };
import { ACTIVATIONS } from "../nn/layers.js";

/** transformers' rope_parameters; Kiln implements the default rotary embedding only. */
export interface RopeParameters {
  rope_type: "default";
  rope_theta: number;
}

export interface LlamaConfig extends CausalLmConfig {
  model_type: "llama";
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  head_dim: number;
  hidden_act: string;
  max_position_embeddings: number;
  initializer_range: number;
  rms_norm_eps: number;
  rope_parameters: RopeParameters;
  tie_word_embeddings: boolean;
  attention_bias: boolean;
  attention_dropout: number;
  mlp_bias: boolean;
}

export interface Gpt2Config extends CausalLmConfig {
  model_type: "gpt2";
  n_embd: number;
  n_layer: number;
  n_head: number;
  /** The feed-forward width; null means 4 · n_embd. */
  n_inner: number | null;
  n_positions: number;
  activation_function: string;
  resid_pdrop: number;
  embd_pdrop: number;
  attn_pdrop: number;
  layer_norm_epsilon: number;
  initializer_range: number;
  scale_attn_weights: boolean;
  tie_word_embeddings: boolean;
}

export type CausalConfig = LlamaConfig | Gpt2Config;
export type ModelConfig = MlmConfig | CausalConfig;
export type CausalModelType = CausalConfig["model_type"];

export const CAUSAL_ARCHITECTURE: Record<CausalModelType, string> = { llama: "LlamaForCausalLM", gpt2: "GPT2LMHeadModel" };

export function isCausalConfig(c: { model_type: unknown }): c is CausalConfig {
  return c.model_type === "llama" || c.model_type === "gpt2";
}

type Fail = (msg: string) => never;

function failAt(where: string): Fail {
  return (msg) => {
    throw new Error(`${where}: ${msg}`);
  };
}

function positiveInts(raw: Record<string, unknown>, fields: readonly string[], fail: Fail): void {
  for (const f of fields) {
    const v = raw[f];
    if (!Number.isInteger(v) || (v as number) < 1) fail(`"${f}" must be a positive integer, got ${JSON.stringify(v)}`);
  }
}

function probabilities(c: Record<string, unknown>, fields: readonly string[], fail: Fail): void {
  for (const f of fields) {
    const v = c[f];
    if (!(typeof v === "number" && v >= 0 && v < 1)) fail(`"${f}" must be in [0, 1), got ${JSON.stringify(v)}`);
  }
}

function positive(c: Record<string, unknown>, f: string, fail: Fail): void {
  if (!(typeof c[f] === "number" && (c[f] as number) > 0)) fail(`"${f}" must be a positive number, got ${JSON.stringify(c[f])}`);
}

function booleans(c: Record<string, unknown>, fields: readonly string[], fail: Fail): void {
  for (const f of fields) if (typeof c[f] !== "boolean") fail(`"${f}" must be true or false, got ${JSON.stringify(c[f])}`);
}

/** bos/eos/pad ids: null, or ids inside the vocabulary (eos may be a list, as transformers allows). */
function tokenIds(c: CausalLmConfig, fail: Fail): void {
  const check = (field: string, v: unknown) => {
    if (v === null || v === undefined) return;
    if (!Number.isInteger(v) || (v as number) < 0 || (v as number) >= c.vocab_size)
      fail(`"${field}" must be null or a token id in [0, ${c.vocab_size}) (vocab_size), got ${JSON.stringify(v)}`);
  };
  check("bos_token_id", c.bos_token_id);
  check("pad_token_id", c.pad_token_id);
  if (Array.isArray(c.eos_token_id)) c.eos_token_id.forEach((v) => check("eos_token_id", v));
  else check("eos_token_id", c.eos_token_id);
}

function activation(c: Record<string, unknown>, field: string, fail: Fail): void {
  const v = c[field];
  if (typeof v !== "string" || !ACTIVATIONS[v])
    fail(`"${field}" ${JSON.stringify(v)} is not supported (${Object.keys(ACTIVATIONS).join(", ")})`);
}

/**
 * The rotary settings in either spelling transformers reads: `rope_parameters` (transformers 5) or
 * the older top-level `rope_theta` with `rope_scaling`. Anything but the default rope is refused:
 * scaled variants (linear, dynamic, yarn, llama3, …) change the angles, and ignoring them would load a
 * model that silently computes something else.
 */
function ropeParameters(raw: Record<string, unknown>, fail: Fail): RopeParameters {
  const params = raw.rope_parameters as Record<string, unknown> | null | undefined;
  const scaling = raw.rope_scaling as Record<string, unknown> | null | undefined;
  for (const [field, value] of [
    ["rope_parameters", params],
    ["rope_scaling", scaling],
  ] as const) {
    if (value === null || value === undefined) continue;
    if (typeof value !== "object" || Array.isArray(value)) fail(`"${field}" must be an object or null, got ${JSON.stringify(value)}`);
    const type = value.rope_type ?? value.type ?? "default";
    if (type !== "default")
      fail(
        `"${field}" asks for rope type ${JSON.stringify(type)}: Kiln implements the default rotary embedding only ` +
          `(rope_type "default"); scaled variants are not supported`,
      );
    if (value.partial_rotary_factor !== undefined && value.partial_rotary_factor !== 1)
      fail(`"${field}.partial_rotary_factor" ${JSON.stringify(value.partial_rotary_factor)} is not supported (only 1)`);
  }
  const theta = params?.rope_theta ?? raw.rope_theta ?? 10000;
  if (!(typeof theta === "number" && theta > 0)) fail(`"rope_theta" must be a positive number, got ${JSON.stringify(theta)}`);
  return { rope_type: "default", rope_theta: theta as number };
}

export function validateLlamaConfig(raw: Record<string, unknown>, where: string): LlamaConfig {
  const fail = failAt(where);
  positiveInts(raw, ["vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads"], fail);
  const heads = raw.num_attention_heads as number;
  const { rope_theta: _theta, rope_scaling: _scaling, ...rest } = raw;
  const c = {
    num_key_value_heads: heads,
    head_dim: Math.floor((raw.hidden_size as number) / heads),
    hidden_act: "silu",
    max_position_embeddings: 2048,
    initializer_range: 0.02,
    rms_norm_eps: 1e-6,
    tie_word_embeddings: false,
    attention_bias: false,
    attention_dropout: 0,
    mlp_bias: false,
    bos_token_id: 1,
    eos_token_id: 2,
    pad_token_id: null,
    ...rest,
    architectures: ["LlamaForCausalLM"],
    rope_parameters: ropeParameters(raw, fail),
  } as LlamaConfig;
  // transformers writes null for head_dim/num_key_value_heads it derives.
  if ((raw.num_key_value_heads ?? null) === null) c.num_key_value_heads = heads;
  if ((raw.head_dim ?? null) === null) c.head_dim = Math.floor(c.hidden_size / heads);
  positiveInts(c, ["num_key_value_heads", "head_dim", "max_position_embeddings"], fail);
  if (c.hidden_size % heads !== 0) fail(`hidden_size ${c.hidden_size} is not a multiple of num_attention_heads ${heads}`);
  if (heads % c.num_key_value_heads !== 0)
    fail(
      `num_attention_heads ${heads} is not a multiple of num_key_value_heads ${c.num_key_value_heads} (each key/value head serves a group)`,
    );
  if (c.head_dim % 2 !== 0) fail(`head_dim ${c.head_dim} must be even (rotary embeddings rotate pairs of halves)`);
  activation(c, "hidden_act", fail);
  positive(c, "rms_norm_eps", fail);
  if (!(typeof c.initializer_range === "number" && c.initializer_range >= 0))
    fail(`"initializer_range" must be a non-negative number, got ${JSON.stringify(c.initializer_range)}`);
  probabilities(c, ["attention_dropout"], fail);
  booleans(c, ["tie_word_embeddings", "attention_bias", "mlp_bias"], fail);
  tokenIds(c, fail);
  return c;
}

/** Settings of GPT2Config that change the computation and that Kiln does not implement. */
const GPT2_REFUSED: Record<string, string> = {
  scale_attn_by_inverse_layer_idx: "attention scores scaled by 1/(layer index + 1)",
  reorder_and_upcast_attn: "attention with the scale applied before the product and the scores upcast to f32",
  add_cross_attention: "cross-attention to an encoder (GPT-2 as the decoder of an encoder-decoder model)",
};

export function validateGpt2Config(raw: Record<string, unknown>, where: string): Gpt2Config {
  const fail = failAt(where);
  positiveInts(raw, ["vocab_size", "n_embd", "n_layer", "n_head", "n_positions"], fail);
  const c = {
    n_inner: null,
    activation_function: "gelu_new",
    resid_pdrop: 0.1,
    embd_pdrop: 0.1,
    attn_pdrop: 0.1,
    layer_norm_epsilon: 1e-5,
    initializer_range: 0.02,
    scale_attn_weights: true,
    tie_word_embeddings: true,
    bos_token_id: 50256,
    eos_token_id: 50256,
    pad_token_id: null,
    ...raw,
    architectures: ["GPT2LMHeadModel"],
  } as Gpt2Config;
  for (const [field, what] of Object.entries(GPT2_REFUSED))
    if (c[field] === true) fail(`"${field}" is true: ${what} is not implemented; set it to false (or remove it)`);
  if (c.n_inner !== null) positiveInts(c, ["n_inner"], fail);
  if (c.n_embd % c.n_head !== 0) fail(`n_embd ${c.n_embd} is not a multiple of n_head ${c.n_head}`);
  activation(c, "activation_function", fail);
  positive(c, "layer_norm_epsilon", fail);
  if (!(typeof c.initializer_range === "number" && c.initializer_range >= 0))
    fail(`"initializer_range" must be a non-negative number, got ${JSON.stringify(c.initializer_range)}`);
  probabilities(c, ["resid_pdrop", "embd_pdrop", "attn_pdrop"], fail);
  booleans(c, ["scale_attn_weights", "tie_word_embeddings"], fail);
  tokenIds(c, fail);
  return c;
}

/** A decoder's config (model_type "llama" or "gpt2"); `where` names its source in errors. */
export function validateCausalConfig(raw: Record<string, unknown>, where: string): CausalConfig {
  if (raw.model_type === "llama") return validateLlamaConfig(raw, where);
  if (raw.model_type === "gpt2") return validateGpt2Config(raw, where);
  throw new Error(`${where}: model_type must be "llama" or "gpt2" for a causal language model, got ${JSON.stringify(raw.model_type)}`);
}

/** Any config Kiln builds a model from: masked LMs (roberta, bert) and causal LMs (llama, gpt2). */
export function validateModelConfig(raw: Record<string, unknown>, where: string): ModelConfig {
  if (isCausalConfig(raw as { model_type: unknown })) return validateCausalConfig(raw, where);
  if (raw.model_type === "roberta" || raw.model_type === "bert") return validateConfig(raw, where);
  throw new Error(`${where}: model_type ${JSON.stringify(raw.model_type)} is not supported (roberta, bert, llama, gpt2)`);
}

/** Reads any supported config.json (masked or causal LM), dispatching on its model_type. */
export async function readModelConfig(path: string): Promise<ModelConfig> {
  return validateModelConfig(await readJsonObject(path), path);
}

/** The longest sequence a causal config has positions for. */
export function causalMaxLength(c: CausalConfig): number {
  return c.model_type === "llama" ? c.max_position_embeddings : c.n_positions;
}

/**
 * The ids a causal preset takes from its tokenizer. A Kiln Tokenizer fits as is: its cls/sep tokens
 * (<s>, </s>) serve as bos/eos where no bosId/eosId is given.
 */
export interface CausalTokenizerIds {
  vocabSize: number;
  padId?: number | null;
  bosId?: number | null;
  eosId?: number | null;
  clsId?: number;
  sepId?: number;
}

type LlamaPreset = Omit<LlamaConfig, "vocab_size" | "bos_token_id" | "eos_token_id" | "pad_token_id" | "max_position_embeddings">;
type Gpt2Preset = Omit<Gpt2Config, "vocab_size" | "bos_token_id" | "eos_token_id" | "pad_token_id" | "n_positions">;

function llama(
  shape: Pick<LlamaConfig, "hidden_size" | "intermediate_size" | "num_hidden_layers" | "num_attention_heads" | "num_key_value_heads">,
  eps: number,
): LlamaPreset {
  return {
    model_type: "llama",
    architectures: ["LlamaForCausalLM"],
    ...shape,
    head_dim: shape.hidden_size / shape.num_attention_heads,
    hidden_act: "silu",
    initializer_range: 0.02,
    rms_norm_eps: eps,
    rope_parameters: { rope_type: "default", rope_theta: 10000 },
    tie_word_embeddings: true,
    attention_bias: false,
    attention_dropout: 0,
    mlp_bias: false,
  };
}

function gpt2(shape: Pick<Gpt2Config, "n_embd" | "n_layer" | "n_head">): Gpt2Preset {
  return {
    model_type: "gpt2",
    architectures: ["GPT2LMHeadModel"],
    ...shape,
    n_inner: null,
    activation_function: "gelu_new",
    resid_pdrop: 0.1,
    embd_pdrop: 0.1,
    attn_pdrop: 0.1,
    layer_norm_epsilon: 1e-5,
    initializer_range: 0.02,
    scale_attn_weights: true,
    tie_word_embeddings: true,
  };
}

const CAUSAL_PRESETS: Record<string, { config: LlamaPreset | Gpt2Preset; maxLength: number }> = {
  // Tests: a few thousand parameters besides the embeddings, grouped-query attention included.
  "llama-tiny": {
    config: llama({ hidden_size: 16, intermediate_size: 32, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2 }, 1e-5),
    maxLength: 64,
  },
  // The CPU preset: about the cost per token of mlm-small (4 layers of width 256; SwiGLU's three
  // matrices of 688 ≈ two of 1024).
  "llama-small": {
    config: llama({ hidden_size: 256, intermediate_size: 688, num_hidden_layers: 4, num_attention_heads: 4, num_key_value_heads: 2 }, 1e-5),
    maxLength: 128,
  },
  // The shapes of HuggingFaceTB/SmolLM-135M.
  "smollm-135m": {
    config: llama(
      { hidden_size: 576, intermediate_size: 1536, num_hidden_layers: 30, num_attention_heads: 9, num_key_value_heads: 3 },
      1e-5,
    ),
    maxLength: 2048,
  },
  "gpt2-tiny": { config: gpt2({ n_embd: 16, n_layer: 2, n_head: 2 }), maxLength: 64 },
  "gpt2-small": { config: gpt2({ n_embd: 256, n_layer: 4, n_head: 4 }), maxLength: 128 },
  // The shapes of OpenAI's GPT-2 (124M parameters with its 50257-token vocabulary).
  "gpt2-124m": { config: gpt2({ n_embd: 768, n_layer: 12, n_head: 12 }), maxLength: 1024 },
};

export const CAUSAL_PRESET_NAMES = Object.keys(CAUSAL_PRESETS);

/** A causal preset's config with the vocabulary and special ids taken from the tokenizer. */
export function causalPresetConfig(name: string, tok: CausalTokenizerIds, maxLength?: number): CausalConfig {
  const p = CAUSAL_PRESETS[name];
  if (!p) throw new Error(`unknown causal preset "${name}"; presets: ${CAUSAL_PRESET_NAMES.join(", ")}`);
  const len = maxLength ?? p.maxLength;
  const ids = {
    vocab_size: tok.vocabSize,
    bos_token_id: tok.bosId ?? tok.clsId ?? null,
    eos_token_id: tok.eosId ?? tok.sepId ?? null,
    pad_token_id: tok.padId ?? null,
  };
  const positions = p.config.model_type === "llama" ? { max_position_embeddings: len } : { n_positions: len };
  return validateCausalConfig({ ...p.config, ...ids, ...positions }, `preset ${name}`);
}
