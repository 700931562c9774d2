// Parameter initializers (the ones BERT-family models use), drawn from the engine's PRNG so an init
// is reproducible on every executor.
import * as k from "../core/index.js";

/** Normal values with mean 0 and `std`. */
export function normalInit(key: k.Array, shape: readonly number[], std = 0.02): k.Array {
  return k.normal(key, shape, { std });
}

/** Zeros of `shape` (an initializer). */
export function zerosInit(shape: readonly number[]): k.Array {
  return k.zeros(shape);
}

/** Ones of `shape` (an initializer). */
export function onesInit(shape: readonly number[]): k.Array {
  return k.ones(shape);
}

/**
 * Hands out independent keys in a fixed order, so adding a parameter later in the order never changes
 * the ones before it.
 */
export class KeySequence {
  private n = 0;
  constructor(private readonly key: k.Array) {}
  next(): k.Array {
    return k.foldIn(this.key, this.n++);
  }
}

/**
 * A sinusoidal position table (Vaswani et al. 2017): row p is [sin(p·ωᵢ) …, cos(p·ωᵢ) …] with
 * ωᵢ = 10000^(−2i/dim), scaled so its entries have standard deviation `std` (sin and cos over many
 * positions have RMS 1/√2), i.e. as large as a normal init of the same std. The position of p + d is
 * a fixed rotation of p's row for every p, so attention can learn "the token d to the left" from the
 * first step instead of discovering positions from random rows. `frequencies` (one per sin/cos pair)
 * replaces the ωᵢ.
 */
export function sinusoidalInit(rows: number, dim: number, std = 0.02, frequencies = sinusoidFrequencies(dim)): k.Array {
  const half = Math.floor(dim / 2);
  const freqs = Float32Array.from(frequencies);
  if (freqs.length !== half) throw new Error(`sinusoidalInit: ${freqs.length} frequencies for a width of ${dim} (want ${half})`);
  const angles = k.iota([rows, 1], 0, "f32").mul(k.array(freqs, { shape: [1, half] }));
  const parts = [k.sin(angles), k.cos(angles)];
  // An odd width gets a zero last column (its rows stay a rotation of each other in the rest).
  if (dim % 2) parts.push(k.zeros([rows, 1]));
  return k.concat(parts, 1).mul(std * Math.SQRT2);
}

/** Vaswani et al.'s angular frequencies 10000^(−2i/dim), one per sin/cos pair of a `dim`-wide table. */
export function sinusoidFrequencies(dim: number): Float32Array {
  return Float32Array.from({ length: Math.floor(dim / 2) }, (_, i) => 10000 ** ((-2 * i) / dim));
}
