// Rotary position embeddings (RoPE) in Hugging Face's convention: the head dimension is split in two
// halves that rotate together (rotate_half), not interleaved pairs; the angles come from the position
// ids inside the traced function, so left-padded rows and cached decoding get their own positions.
import * as k from "../core/index.js";

/**
 * The inverse frequencies θ^(-2i/d), i = 0 … d/2-1, rounded to f32 as transformers computes them
 * (its default rope type; scaled variants are not implemented).
 */
export function ropeInverseFrequencies(headDim: number, theta: number): Float32Array {
  const half = headDim / 2;
  return Float32Array.from({ length: half }, (_, i) => 1 / theta ** ((2 * i) / headDim));
}

/** Rotary position embeddings' cos and sin for each position. */
export interface RotaryAngles {
  /** cos and sin of each position's angles, [batch, seq, 1, headDim] in the activation dtype. */
  cos: k.Array;
  sin: k.Array;
}

/** cos/sin for positions [batch, seq] (i32, traced), computed in f32 and cast to `dtype` as transformers does. */
export function rotaryAngles(positions: k.Array, inverseFrequencies: Float32Array, dtype: k.DType): RotaryAngles {
  const [b, t] = positions.shape as [number, number];
  const half = inverseFrequencies.length;
  const inv = k.array(inverseFrequencies, { shape: [1, 1, half] });
  const freqs = positions.astype("f32").reshape([b, t, 1]).mul(inv);
  // transformers takes cos and sin of the angles concatenated with themselves; here they are taken of one
  // half and the results concatenated: the same values for half the cos/sin calls (XLA's CPU backend makes
  // each one a scalar libm call). ONNX Runtime's rotary kernel (exec/ort/fused-kernels.ts) recognizes the
  // angles by that concatenation of a value with itself.
  const both = (f: k.Array) => k.concat([f, f], -1).reshape([b, t, 1, 2 * half]);
  return { cos: both(k.cos(freqs).astype(dtype)), sin: both(k.sin(freqs).astype(dtype)) };
}

/** x · cos + rotate_half(x) · sin for x [batch, seq, heads, headDim]; rotate_half(x) = [-x₂, x₁]. */
export function applyRotary(x: k.Array, angles: RotaryAngles): k.Array {
  const d = x.shape[x.ndim - 1]!;
  const [x1, x2] = k.split(x, [d / 2, d / 2], -1) as [k.Array, k.Array];
  const rotated = k.concat([x2.neg(), x1], -1);
  return x.mul(angles.cos).add(rotated.mul(angles.sin));
}
