// The "local-attention" start of an encoder trained from scratch: a sinusoidal position table whose
// fastest sin/cos pairs turn between a quarter and three quarters of a turn per position, and first-layer
// query/key weights that make each head attend to one fixed neighbour (offsets -1, +1, -2, +2, …).
//
// Why: with absolute positions a masked LM must discover "look at the token beside you" through one
// learned vector per position, and with transformers' init (or plain sinusoids) RoBERTa on SOTU predicts
// the most frequent piece at every [MASK] for thousands of steps (in PyTorch as in Kiln; pre-LN and
// all-[MASK] training do the same). Started with heads that already look at the neighbours, it uses them
// at once. Only the starting values differ: the architecture and the checkpoint are transformers' own.
import * as k from "../core/index.js";
import { sinusoidalInit, sinusoidFrequencies } from "../nn/init.js";
import type { MlmConfig } from "./config.js";
import type { EncoderParams } from "./transformer-encoder.js";

/**
 * Score a head gives its neighbour over the rest, in logits: the neighbour gets about 70% of the
 * attention at the start (on SOTU text), the model can still move it.
 */
const PEAK_SCORE = 20;

/** The sin/cos pairs a head's queries and keys read: its head width's worth of the fastest ones. */
function localPairs(c: MlmConfig): number {
  return Math.floor(c.hidden_size / c.num_attention_heads / 2);
}

/** The position table's frequencies: the first pairs spread over [π/4, 3π/4] radians per position, the rest as Vaswani et al. */
export function localAttentionFrequencies(c: MlmConfig): Float32Array {
  const freqs = sinusoidFrequencies(c.hidden_size);
  const n = localPairs(c);
  for (let m = 0; m < n; m++) freqs[m] = Math.PI / 4 + (n > 1 ? (m * Math.PI) / 2 / (n - 1) : 0);
  return freqs;
}

/** The position table of the local-attention start ([rows, hidden], the initializer's scale). */
export function localAttentionPositions(c: MlmConfig): k.Array {
  return sinusoidalInit(c.max_position_embeddings, c.hidden_size, c.initializer_range, localAttentionFrequencies(c));
}

/** Head h's neighbour: -1, +1, -2, +2, … (the token before, after, two before, …). */
export function headOffset(h: number): number {
  const distance = Math.floor(h / 2) + 1;
  return h % 2 === 0 ? -distance : distance;
}

/**
 * The encoder with its first layer's query and key weights (and biases, zero) replaced. Head h's query
 * reads the position table's pairs m < headWidth/2 as they are; its key reads them rotated back by
 * offset(h)·ω_m, so q_i·k_j = g²·Σ_m cos((i + offset − j)·ω_m) (times the LayerNorm's scale), largest
 * at j = i + offset. The frequencies between π/4 and 3π/4 make that sum fall off within a position and
 * keep a token's own (non-positional) part of q·k near zero on average, so heads do not look at themselves.
 */
export function withLocalAttention(encoder: EncoderParams, c: MlmConfig): EncoderParams {
  const [first, ...rest] = encoder.layer;
  if (!first) return encoder;
  const hidden = c.hidden_size,
    heads = c.num_attention_heads,
    width = hidden / heads,
    half = Math.floor(hidden / 2),
    pairs = localPairs(c);
  const freqs = localAttentionFrequencies(c);
  // After the embeddings' LayerNorm a pair's sin/cos has amplitude about 1 (position is half the variance):
  // the peak score is g² · pairs / √width (attention's scaling).
  const g = Math.sqrt((PEAK_SCORE * Math.sqrt(width)) / pairs);
  const query = new Float32Array(hidden * hidden),
    key = new Float32Array(hidden * hidden);
  for (let h = 0; h < heads; h++) {
    const offset = headOffset(h);
    for (let m = 0; m < pairs; m++) {
      const sinRow = (h * width + 2 * m) * hidden,
        cosRow = sinRow + hidden;
      const c0 = Math.cos(offset * freqs[m]!),
        s0 = Math.sin(offset * freqs[m]!);
      // Weights are [out, in]: out rows 2m, 2m+1 of head h read the table's sin (column m) and cos (half + m).
      query[sinRow + m] = g;
      query[cosRow + half + m] = g;
      key[sinRow + m] = g * c0;
      key[sinRow + half + m] = -g * s0;
      key[cosRow + m] = g * s0;
      key[cosRow + half + m] = g * c0;
    }
  }
  const dense = (w: Float32Array) => ({ weight: k.array(w, { shape: [hidden, hidden] }), bias: k.zeros([hidden]) });
  const self = { ...first.attention.self, query: dense(query), key: dense(key) };
  return { layer: [{ ...first, attention: { ...first.attention, self } }, ...rest] };
}
