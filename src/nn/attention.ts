// Multi-head self-attention with a padding mask, the BERT/RoBERTa way (scores scaled by 1/√d, masked
// positions get a large negative bias before the softmax, dropout on the probabilities).
import * as k from "../core/index.js";
import { accumulationDtype, dense, type DenseParams } from "./layers.js";
import type { DropoutSites } from "./dropout-sites.js";

/** The parameters of self-attention's query, key and value projections. */
export interface SelfAttentionParams {
  query: DenseParams;
  key: DenseParams;
  value: DenseParams;
}

/** Additive attention bias [batch, 1, 1, seq] from an attention mask [batch, seq] of 1 (keep) / 0 (pad). */
export function paddingBias(attentionMask: k.Array, dtype: k.DType): k.Array {
  const [b, t] = attentionMask.shape as [number, number];
  // Large but finite, so a bf16/f16 bias stays representable.
  return k.sub(1, attentionMask.astype("f32")).mul(-1e9).astype(dtype).reshape([b, 1, 1, t]);
}

/** x [batch, seq, hidden] → context [batch, seq, hidden]; dropout on the probabilities at `dropoutSite`. */
export function selfAttention(
  p: SelfAttentionParams,
  x: k.Array,
  bias: k.Array,
  heads: number,
  dropoutRate: number,
  sites: DropoutSites,
  dropoutSite: number | k.Array,
): k.Array {
  const [b, t, h] = x.shape as [number, number, number];
  const d = h / heads;
  const split = (y: k.Array) => y.reshape([b, t, heads, d]);
  const q = split(dense(p.query, x)).mul(1 / Math.sqrt(d));
  const kk = split(dense(p.key, x));
  const v = split(dense(p.value, x));
  const scores = k.einsum("bqhd,bkhd->bhqk", q, kk).add(bias);
  let probs = k.softmax(scores.astype(accumulationDtype(x.dtype)), -1).astype(x.dtype);
  probs = sites.apply(probs, dropoutRate, dropoutSite);
  return k.einsum("bhqk,bkhd->bqhd", probs, v).reshape([b, t, h]);
}
