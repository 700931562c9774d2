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

/**
 * x [batch, seq, hidden] → context [batch, queries, hidden]; dropout on the probabilities at `dropoutSite`.
 * The queries come from `queries` (some of x's rows, [batch, queries, hidden]; default x itself): keys
 * and values always come from every row of x.
 */
export function selfAttention(
  p: SelfAttentionParams,
  x: k.Array,
  bias: k.Array,
  heads: number,
  dropoutRate: number,
  sites: DropoutSites,
  dropoutSite: number | k.Array,
  queries: k.Array = x,
): k.Array {
  const [b, t, h] = x.shape as [number, number, number];
  const tq = queries.shape[1]!;
  const d = h / heads;
  const split = (y: k.Array, rows: number) => y.reshape([b, rows, heads, d]);
  // The 1/√d scale applied to the query projection's weight and bias ([hidden, hidden] and [hidden]
  // values) instead of to every query ([batch, seq, hidden]), forward and back; the same values where
  // the scale is a power of two (head size 64: 1/8).
  const scale = 1 / Math.sqrt(d);
  const q = split(dense({ weight: p.query.weight.mul(scale), bias: p.query.bias.mul(scale) }, queries), tq);
  const kk = split(dense(p.key, x), t);
  const v = split(dense(p.value, x), t);
  const scores = k.einsum("bqhd,bkhd->bhqk", q, kk).add(bias);
  let probs = k.softmax(scores.astype(accumulationDtype(x.dtype)), -1).astype(x.dtype);
  probs = sites.apply(probs, dropoutRate, dropoutSite);
  return k.einsum("bhqk,bkhd->bqhd", probs, v).reshape([b, tq, h]);
}
