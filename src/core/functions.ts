// Composite functions written once in primitives, so every executor runs them and autodiff derives
// their gradients: softmax family, layer norm, GELU, dropout, cross-entropy with ignored labels (over
// softmax_cross_entropy, the one loss that is a primitive of its own: see docs/design.md).
import { Array } from "./array.js";
import { isFloat } from "./dtype.js";
import { normAxis } from "./shape.js";
import { iota } from "./ops/creation.js";
import { bind } from "./ops/dispatch.js";
import {
  bitAnd,
  add,
  astype,
  compare,
  div,
  exp,
  isFinite,
  log,
  logistic,
  maximum,
  mul,
  rsqrt,
  stopGradient,
  sub,
  tanh,
  where,
} from "./ops/elementwise.js";
import { max, mean, sum } from "./ops/reduce.js";
import { reshape } from "./ops/shape.js";
import { take } from "./ops/indexing.js";
import { bernoulli, bernoulliHalves } from "./random.js";

/** log Σ exp(x) along an axis, stable (the shift by the max carries no gradient). */
export function logsumexp(x: Array, axis = -1, opts: { keepDims?: boolean } = {}): Array {
  const a = normAxis(axis, x.ndim);
  const m = stopGradient(max(x, a, { keepDims: true }));
  const shift = where(isFinite(m), m, 0);
  const r = add(log(sum(exp(sub(x, shift)), a, { keepDims: true })), shift);
  return opts.keepDims
    ? r
    : reshape(
        r,
        x.shape.filter((_, i) => i !== a),
      );
}

/** Softmax along `axis` (default the last), computed stably (the maximum subtracted first); a primitive, one kernel on ONNX Runtime. */
export function softmax(x: Array, axis = -1): Array {
  return bind("softmax", [x], { axis: normAxis(axis, x.ndim) });
}

/** Log of the softmax along `axis` (default the last), through logsumexp. */
export function logSoftmax(x: Array, axis = -1): Array {
  return sub(x, logsumexp(x, axis, { keepDims: true }));
}

/** Layer normalization over the last axis: (x - mean) / sqrt(var + eps) · gamma + beta. */
export function layerNorm(x: Array, gamma: Array | null, beta: Array | null, eps = 1e-5): Array {
  const mu = mean(x, -1, { keepDims: true });
  const centered = sub(x, mu);
  const variance = mean(mul(centered, centered), -1, { keepDims: true });
  let y = mul(centered, rsqrt(add(variance, eps)));
  if (gamma) y = mul(y, gamma);
  if (beta) y = add(y, beta);
  return y;
}

/** GELU, exact (erf) form: x · Φ(x); a primitive, one kernel on ONNX Runtime. */
export function gelu(x: Array): Array {
  return bind("gelu", [x], {});
}

/**
 * GELU, tanh approximation: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), the form GPT-2 was trained
 * with (Hugging Face's "gelu_new", PyTorch's approximate="tanh").
 */
export function geluTanh(x: Array): Array {
  const inner = mul(add(x, mul(mul(mul(x, x), x), 0.044715)), Math.sqrt(2 / Math.PI));
  return mul(mul(x, 0.5), add(tanh(inner), 1));
}

/** σ(x) = 1 / (1 + e^-x): the logistic primitive, one fused kernel on every executor. */
export function sigmoid(x: Array): Array {
  return logistic(x);
}

/** SiLU (swish): x · σ(x), the gate of Llama's SwiGLU feed-forward. */
export function silu(x: Array): Array {
  return bind("silu", [x], {});
}

/**
 * Inverted dropout: zeroes each element with probability `rate`, scales the rest by 1/(1-rate).
 * `offset` shifts the random stream (randomBits' counter): a batch that is a slice of a larger one
 * (a replica's share, a micro-batch) passes the element offset of its first element and draws the
 * same mask as the larger batch would. `halves`: draw two elements per hash (bernoulliHalves, rows along
 * the first axis; the keep probability kept to 1/65536), half the hashing, for a row length that is even
 * and an offset that is a multiple of it: a model's dropout sites, whose rows are examples.
 */
export function dropout(
  key: Array | null,
  x: Array,
  rate: number,
  opts: { deterministic?: boolean; offset?: number | Array; halves?: boolean } = {},
): Array {
  if (rate < 0 || rate >= 1) throw new Error(`dropout rate must be in [0, 1), got ${rate}`);
  if (rate === 0 || opts.deterministic) return x;
  if (!key) throw new Error("dropout needs a PRNG key when it is active (pass deterministic: true to disable it)");
  // One multiply by the kept elements' mask, already scaled by 1/(1-rate): forward and back (its
  // gradient is the same multiply) that is one pass each, where selecting and scaling took two, and a
  // select over a large array is among ONNX Runtime's slowest elementwise kernels.
  const scale = 1 / (1 - rate);
  // Drawn flat (the same row-major bits), as broadcasting a scalar is slower over more dimensions.
  const rows = x.shape[0] ?? 1;
  const keep = opts.halves
    ? bernoulliHalves(key, 1 - rate, rows, x.size / rows, opts.offset ?? 0)
    : bernoulli(key, 1 - rate, [x.size], opts.offset ?? 0);
  const mask = mul(astype(keep, x.dtype), scale);
  return mul(x, reshape(mask, x.shape));
}

/** x[..., idx[...]] picking one element per row along the last axis (idx has x's shape minus that axis). */
export function takeAlongLastAxis(x: Array, idx: Array): Array {
  const v = x.shape[x.ndim - 1]!;
  const rows = x.size / v;
  const flatIdx = add(mul(iota([rows], 0, "i32"), v), reshape(astype(idx, "i32"), [rows]));
  return reshape(take(reshape(x, [rows * v]), flatIdx, 0), idx.shape);
}

/** Options of crossEntropy and softmaxCrossEntropy. */
export interface CrossEntropyOptions {
  /** Labels equal to this are ignored (default -100, as PyTorch and Hugging Face). */
  ignoreIndex?: number;
  /** "mean" over counted labels (default), "sum", or "none" (per position, 0 where ignored). */
  reduction?: "mean" | "sum" | "none";
}

/**
 * Per-position negative log-likelihood logsumexp(x) − x[label] from logits [..., V] and i32/u32 labels
 * [...] (clamped into [0, V)), as one primitive whose gradient is softmax(x) − onehot(label).
 */
export function softmaxCrossEntropy(logits: Array, labels: Array): Array {
  return bind("softmax_cross_entropy", [logits, labels], {});
}

/**
 * Softmax cross-entropy from logits [..., V] and integer labels [...]. Ignored labels are masked by
 * multiplication and the mean divides by the mask's sum: no data-dependent shapes (XLA rule 2).
 */
export function crossEntropy(logits: Array, labels: Array, opts: CrossEntropyOptions = {}): Array {
  const { ignoreIndex = -100, reduction = "mean" } = opts;
  if (!isFloat(logits.dtype)) throw new Error(`crossEntropy needs float logits, got ${logits.dtype}`);
  const counted = compare(labels, ignoreIndex, "ne");
  const safe = where(counted, labels, 0);
  const mask = astype(counted, logits.dtype);
  const nll = mul(softmaxCrossEntropy(logits, safe.dtype === "u32" ? safe : astype(safe, "i32")), mask);
  if (reduction === "none") return nll;
  const total = sum(nll);
  return reduction === "sum" ? total : div(total, maximum(sum(mask), 1));
}

/**
 * 1 where a position's label has the largest logit (top-1 hit; ties with another logit count as hits),
 * 0 elsewhere and where the label is `ignoreIndex`; logits [..., V], labels [...] → bool [...]. Two
 * passes over the logits (a max and a gather), where argmax(logits) == label takes five: on a causal
 * step's [4064 × 8192] logits that was 5% of the step.
 */
export function labelIsTop(logits: Array, labels: Array, ignoreIndex = -100): Array {
  const counted = compare(labels, ignoreIndex, "ne");
  const picked = takeAlongLastAxis(logits, where(counted, labels, 0));
  return bitAnd(counted, compare(picked, max(logits, -1), "ge"));
}
