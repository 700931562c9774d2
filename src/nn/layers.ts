// Layers as pure functions over parameter trees. Weights use PyTorch's layout ([out, in] for dense
// layers) so that parameter trees map one to one onto Hugging Face checkpoints.
import * as k from "../core/index.js";
import { KeySequence, normalInit, onesInit, zerosInit } from "./init.js";

/** The parameters of a dense layer: weight [out, in] and bias [out]. */
export interface DenseParams {
  weight: k.Array;
  bias: k.Array;
}
/** The parameters of a layer norm: weight and bias [dim]. */
export interface NormParams {
  weight: k.Array;
  bias: k.Array;
}
/** The parameters of an embedding table: weight [vocabulary, dim]. */
export interface EmbeddingParams {
  weight: k.Array;
}

/** A dense layer's parameters: weight normal with `std`, bias zero. */
export function denseInit(keys: KeySequence, inDim: number, outDim: number, std = 0.02): DenseParams {
  return { weight: normalInit(keys.next(), [outDim, inDim], std), bias: zerosInit([outDim]) };
}

/** y = x · Wᵀ + b over the last axis of x (W is [out, in]). */
export function dense(p: DenseParams, x: k.Array): k.Array {
  // The product and the bias over rows [n, in] (then the leading axes back): the product is one
  // two-dimensional Gemm on the CPU with no reshapes around it, and the bias a two-dimensional add
  // (ONNX Runtime broadcasts over fewer dimensions faster): a few percent of a MiniLM fine-tuning step.
  const [out, inDim] = p.weight.shape as [number, number];
  const lead = x.shape.slice(0, -1);
  const rows = x.ndim === 2 ? x : x.reshape([x.size / inDim, inDim]);
  const y = k.bind("dot_general", [rows, castLike(p.weight, x)], { lhsContract: [1], rhsContract: [1], lhsBatch: [], rhsBatch: [] });
  const biased = y.add(castLike(p.bias, y));
  return x.ndim === 2 ? biased : biased.reshape([...lead, out]);
}

/** A layer norm's parameters: weight one, bias zero. */
export function layerNormInit(dim: number): NormParams {
  return { weight: onesInit([dim]), bias: zerosInit([dim]) };
}

/** The dtype to compute reductions in: 16-bit floats widen to f32 (as mixed-precision training does). */
export function accumulationDtype(d: k.DType): k.DType {
  return d === "bf16" || d === "f16" ? "f32" : d;
}

/** Layer norm computed in at least f32 whatever the activation dtype. */
export function layerNorm(p: NormParams, x: k.Array, eps: number): k.Array {
  const acc = accumulationDtype(x.dtype);
  const y = k.layerNorm(x.astype(acc), p.weight.astype(acc), p.bias.astype(acc), eps);
  return y.astype(x.dtype);
}

/**
 * RMS norm (Llama's, T5's): the normalization in at least f32, back in x's dtype, then the weight:
 * weight · (x · rsqrt(mean(x²) + eps)), as Hugging Face's LlamaRMSNorm orders it.
 */
export function rmsNorm(weight: k.Array, x: k.Array, eps: number): k.Array {
  const xa = x.astype(accumulationDtype(x.dtype));
  const normalized = xa.mul(k.rsqrt(xa.mul(xa).mean(-1, { keepDims: true }).add(eps))).astype(x.dtype);
  return castLike(weight, normalized).mul(normalized);
}

/** GPT-2's Conv1D: a dense layer whose weight is stored [in, out] (y = x · W + b). */
export function conv1d(p: DenseParams, x: k.Array): k.Array {
  const y = k.bind("dot_general", [x, castLike(p.weight, x)], { lhsContract: [x.ndim - 1], rhsContract: [0], lhsBatch: [], rhsBatch: [] });
  return y.add(castLike(p.bias, y));
}

/** A GPT-2 Conv1D layer's parameters (weight [in, out]), normal with `std`, bias zero. */
export function conv1dInit(keys: KeySequence, inDim: number, outDim: number, std = 0.02): DenseParams {
  return { weight: normalInit(keys.next(), [inDim, outDim], std), bias: zerosInit([outDim]) };
}

/** y = x · Wᵀ over the last axis of x, no bias (W is [out, in]). */
export function linear(weight: k.Array, x: k.Array): k.Array {
  return k.bind("dot_general", [x, castLike(weight, x)], { lhsContract: [x.ndim - 1], rhsContract: [1], lhsBatch: [], rhsBatch: [] });
}

/** An embedding table's parameters, normal with `std`. */
export function embeddingInit(keys: KeySequence, vocab: number, dim: number, std = 0.02): EmbeddingParams {
  return { weight: normalInit(keys.next(), [vocab, dim], std) };
}

/** The rows of the embedding table for `ids`. */
export function embed(p: EmbeddingParams, ids: k.Array): k.Array {
  return k.take(p.weight, ids, 0);
}

/** The activation a weight is computed in: parameters are cast to the activations' dtype. */
export function castLike(w: k.Array, like: k.Array): k.Array {
  return w.dtype === like.dtype ? w : w.astype(like.dtype);
}

/** Activation functions by their Hugging Face config name (hidden_act): gelu, relu, tanh, silu, gelu_new, …. */
export const ACTIVATIONS: Record<string, (x: k.Array) => k.Array> = {
  gelu: (x) => k.gelu(x),
  relu: (x) => k.maximum(x, 0),
  tanh: (x) => x.tanh(),
  silu: (x) => k.silu(x),
  gelu_new: (x) => k.geluTanh(x),
};
