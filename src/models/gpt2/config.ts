// GPT-2's `config.json` (transformers' GPT2Config): validated with errors that name the file and
// field, filled with transformers' own defaults where a field is absent; and the GPT-2 presets.
import type { CausalLmConfig } from "../causal-lm.js";
import type { Preset } from "../spec.js";
import { activation, attentionBlockSize, booleans, failAt, positive, positiveInts, probabilities, tokenIds } from "../causal-config.js";

/** A GPT-2 config.json (Hugging Face's field names). */
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
  /**
   * Kiln's, not transformers': attention over a sequence longer than this many tokens runs tile by tile
   * (nn/blockwise-attention.ts: memory linear in the sequence, forward and backward); null or absent: the
   * whole [seq × seq] softmax at every length. Needs attn_pdrop 0.
   */
  attention_block_size?: number | null;
}

/** Settings of GPT2Config that change the computation and that Kiln does not implement. */
const GPT2_REFUSED: Record<string, string> = {
  scale_attn_by_inverse_layer_idx: "attention scores scaled by 1/(layer index + 1)",
  reorder_and_upcast_attn: "attention with the scale applied before the product and the scores upcast to f32",
  add_cross_attention: "cross-attention to an encoder (GPT-2 as the decoder of an encoder-decoder model)",
};

/** `raw` checked as a GPT-2 config (defaults filled in); errors name `where` and the field. */
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
  attentionBlockSize(c, "attn_pdrop", fail);
  booleans(c, ["scale_attn_weights", "tie_word_embeddings"], fail);
  tokenIds(c, fail);
  return c;
}

type Gpt2Preset = Omit<Gpt2Config, "vocab_size" | "bos_token_id" | "eos_token_id" | "pad_token_id" | "n_positions">;

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

export const GPT2_PRESETS = {
  "gpt2-tiny": { fields: gpt2({ n_embd: 16, n_layer: 2, n_head: 2 }), maxLength: 64 },
  "gpt2-small": { fields: gpt2({ n_embd: 256, n_layer: 4, n_head: 4 }), maxLength: 128 },
  // The shapes of OpenAI's GPT-2 (124M parameters with its 50257-token vocabulary).
  "gpt2-124m": { fields: gpt2({ n_embd: 768, n_layer: 12, n_head: 12 }), maxLength: 1024 },
} satisfies Record<string, Preset>;
