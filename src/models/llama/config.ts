// Llama's `config.json` (transformers' LlamaConfig): validated with errors that name the file and
// field, filled with transformers' own defaults where a field is absent; and the Llama presets.
import type { CausalLmConfig } from "../causal-lm.js";
import type { Preset } from "../spec.js";
import {
  activation,
  attentionBlockSize,
  booleans,
  failAt,
  positive,
  positiveInts,
  probabilities,
  tokenIds,
  type Fail,
} from "../causal-config.js";

/** transformers' rope_parameters; Kiln implements the default rotary embedding only. */
export interface RopeParameters {
  rope_type: "default";
  rope_theta: number;
}

/** A Llama config.json (Hugging Face's field names). */
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
  /**
   * Kiln's, not transformers': attention over a sequence longer than this many tokens runs tile by tile
   * (nn/blockwise-attention.ts: memory linear in the sequence, forward and backward); null or absent: the
   * whole [seq × seq] softmax at every length. Needs attention_dropout 0.
   */
  attention_block_size?: number | null;
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

/** `raw` checked as a Llama config (defaults filled in); errors name `where` and the field. */
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
  attentionBlockSize(c, "attention_dropout", fail);
  booleans(c, ["tie_word_embeddings", "attention_bias", "mlp_bias"], fail);
  tokenIds(c, fail);
  return c;
}

type LlamaPreset = Omit<LlamaConfig, "vocab_size" | "bos_token_id" | "eos_token_id" | "pad_token_id" | "max_position_embeddings">;

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

export const LLAMA_PRESETS = {
  // Tests: a few thousand parameters besides the embeddings, grouped-query attention included.
  "llama-tiny": {
    fields: llama({ hidden_size: 16, intermediate_size: 32, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2 }, 1e-5),
    maxLength: 64,
  },
  // The CPU preset: about the cost per token of mlm-small (4 layers of width 256; SwiGLU's three
  // matrices of 688 ≈ two of 1024).
  "llama-small": {
    fields: llama({ hidden_size: 256, intermediate_size: 688, num_hidden_layers: 4, num_attention_heads: 4, num_key_value_heads: 2 }, 1e-5),
    maxLength: 128,
  },
  // The shapes of HuggingFaceTB/SmolLM-135M.
  "smollm-135m": {
    fields: llama(
      { hidden_size: 576, intermediate_size: 1536, num_hidden_layers: 30, num_attention_heads: 9, num_key_value_heads: 3 },
      1e-5,
    ),
    maxLength: 2048,
  },
} satisfies Record<string, Preset>;
