// Counter-based random numbers: bits(key, i) is a pure function of a key (two u32 words) and the
// element's counter, written in u32 primitives so every executor produces the same bits. The mixing is
// a Weyl step followed by MurmurHash3's 32-bit finalizer:
//   h = ((i + k1) · 0x9E3779B1) ⊕ k0;  h ⊕= h≫16;  h ·= 0x85EBCA6B;  h ⊕= h≫13;  h ·= 0xC2B2AE35;  h ⊕= h≫16
import { Array } from "./array.js";
import type { DType } from "./dtype.js";
import type { Device } from "./executor.js";
import type { Shape } from "./shape.js";
import { sizeOf } from "./shape.js";
import { array, full, iota } from "./ops/creation.js";
import { add, astype, bitAnd, bitXor, compare, cos, log, mul, shiftRightLogical, sqrt } from "./ops/elementwise.js";
import { concat, reshape, sliceAxis } from "./ops/shape.js";

/**
 * A PRNG key (u32[2]) from a seed; seeds above 2^32 use their high word too. It lives on `device`
 * (default: the default device), so that a program compiled for another device needs no copy from it.
 */
export function randomKey(seed: number, device?: Device): Array {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`random seed must be a non-negative integer, got ${seed}`);
  return array(new Uint32Array([Math.floor(seed / 2 ** 32) >>> 0, seed >>> 0]), { shape: [2], ...(device ? { device } : {}) });
}

function keyWords(key: Array): [Array, Array] {
  if (key.dtype !== "u32" || key.shape.length !== 1 || key.shape[0] !== 2)
    throw new Error(`a PRNG key is u32[2] (from randomKey), got ${key.dtype}[${key.shape.join(",")}]`);
  return [reshape(sliceAxis(key, 0, 0, 1), []), reshape(sliceAxis(key, 0, 1, 2), [])];
}

/**
 * The hash on arrays (broadcasting), for code that must reproduce host-side draws inside a compiled
 * program: elementwise it equals the data layer's hash32 (src/data/random.ts).
 */
export function hashBits(k0: Array | number, k1: Array | number, counter: Array | number): Array {
  const u = (x: Array | number) => (x instanceof Array ? astype(x, "u32") : array(new Uint32Array([x >>> 0]), { shape: [] }));
  return mix(u(k0), u(k1), u(counter));
}

/** The Weyl step's multiplier. */
const WEYL = 0x9e3779b1;

function mix(k0: Array, k1: Array, counter: Array): Array {
  return finalize(bitXor(mul(add(counter, k1), WEYL), k0));
}

/** MurmurHash3's finalizer of the Weyl step's value ⊕ k0. */
function finalize(weyl: Array): Array {
  let h = bitXor(weyl, shiftRightLogical(weyl, 16));
  h = mul(h, 0x85ebca6b);
  h = bitXor(h, shiftRightLogical(h, 13));
  h = mul(h, 0xc2b2ae35);
  return bitXor(h, shiftRightLogical(h, 16));
}

/**
 * u32 random bits of the given shape; element i (row-major) is hash(key, offset + i). The offset may
 * be traced (e.g. the global index of a batch's first element), so a slice of a larger random array
 * can be drawn on its own with the same bits (wrapping mod 2^32).
 */
export function randomBits(key: Array, shape: Shape, offset: number | Array = 0): Array {
  return reshape(flatBits(key, sizeOf(shape), offset), [...shape]);
}

/** randomBits as a flat [n] array: elementwise work on it stays one-dimensional (ONNX Runtime broadcasts a
 * scalar over a 4-D array about three times slower than over a 1-D one). */
function flatBits(key: Array, n: number, offset: number | Array): Array {
  const [k0, k1] = keyWords(key);
  // (i + offset) + k1 = i + (offset + k1) mod 2^32: the scalars are summed first, so a large draw pays
  // one addition per element, not two.
  const base = offset instanceof Array ? add(k1, astype(offset, "u32").reshape([])) : offset ? add(k1, offset >>> 0) : k1;
  // (i + base)·W = i·W + base·W (mod 2^32): the counters' products are a constant an executor folds
  // when it compiles the program, so a draw pays one addition per element for the Weyl step, not two passes.
  return finalize(bitXor(add(mul(iota([n], 0, "u32"), WEYL), mul(base, WEYL)), k0));
}

/** n new independent keys (u32[n,2]) derived from key; take one with splitKey(key, n)[i]. */
export function splitKey(key: Array, n = 2): Array[] {
  // Derived keys use the odd stream 2^31 + … of the counter space so they never equal data bits of key.
  const bits = randomBits(key, [n, 2], 0x80000000);
  return globalThis.Array.from({ length: n }, (_, i) => reshape(sliceAxis(bits, 0, i, i + 1), [2]));
}

/** A key derived from key and an integer (e.g. a step or example index), itself possibly traced. */
export function foldIn(key: Array, data: number | Array): Array {
  const [k0, k1] = keyWords(key);
  const d = typeof data === "number" ? array(new Uint32Array([data >>> 0]), { shape: [] }) : reshape(astype(data, "u32"), []);
  // Counters 2d and 2d+1 on a stream (bit 30 set) apart from randomBits' and splitKey's.
  const counter = bitXor(add(iota([2], 0, "u32"), mul(d, 2)), 0x40000000);
  return mix(k0, k1, counter);
}

/** Uniform floats in [min, max): 24 random bits per value (exact in f32). `offset` as in randomBits. */
export function uniform(
  key: Array,
  shape: Shape,
  opts: { dtype?: DType; min?: number; max?: number; offset?: number | Array } = {},
): Array {
  const { dtype = "f32", min = 0, max = 1 } = opts;
  const u = mul(astype(shiftRightLogical(randomBits(key, shape, opts.offset ?? 0), 8), "f32"), 2 ** -24);
  const scaled = min === 0 && max === 1 ? u : add(mul(u, max - min), min);
  return astype(scaled, dtype);
}

/** Standard normal floats (Box–Muller on two independent uniform streams). */
export function normal(key: Array, shape: Shape, opts: { dtype?: DType; mean?: number; std?: number } = {}): Array {
  const { dtype = "f32", mean = 0, std = 1 } = opts;
  const [ka, kb] = splitKey(key, 2) as [Array, Array];
  // u1 in (0, 1] so the log is finite.
  const u1 = mul(add(astype(shiftRightLogical(randomBits(ka, shape), 8), "f32"), 1), 2 ** -24);
  const u2 = uniform(kb, shape);
  const z = mul(sqrt(mul(log(u1), -2)), cos(mul(u2, 2 * Math.PI)));
  const out = std === 1 && mean === 0 ? z : add(mul(z, std), mean);
  return astype(out, dtype);
}

/** true with probability p. `offset` as in randomBits. */
export function bernoulli(key: Array, p: number, shape: Shape, offset: number | Array = 0): Array {
  // uniform(…) < p, compared on the bits themselves: u = (bits ≫ 8)·2^-24 is exact, so u < f32(p)
  // exactly when bits ≫ 8 < N = ceil(f32(p)·2^24), that is when bits < N·2^8. The same draws, without
  // the shift, the conversion and the scaling.
  const n = sizeOf(shape);
  const N = Math.ceil(Math.fround(p) * 2 ** 24);
  const flags = !(N > 0)
    ? full([n], false, "bool")
    : N >= 2 ** 24
      ? full([n], true, "bool")
      : compare(flatBits(key, n, offset), N * 2 ** 8, "lt");
  return reshape(flags, [...shape]);
}

/**
 * Bernoulli(p) flags [rows, rowLength], two per hash: row r's element j < rowLength/2 is the low 16 bits
 * of hash(key, offset/2 + r·rowLength/2 + j) and element j + rowLength/2 the high 16 bits, each true when
 * below ceil(p·2^16) (p kept to 1/65536). Half the hashing of bernoulli. `rowLength` must be even, and
 * `offset` (the flat element offset, as bernoulli's) even: a multiple of rowLength draws a run of rows
 * exactly as a larger draw does.
 */
export function bernoulliHalves(key: Array, p: number, rows: number, rowLength: number, offset: number | Array = 0): Array {
  if (rowLength % 2 !== 0) throw new Error(`bernoulliHalves needs an even row length, got ${rowLength}`);
  if (typeof offset === "number" && offset % 2 !== 0) throw new Error(`bernoulliHalves needs an even offset, got ${offset}`);
  const half = rowLength / 2;
  const N = Math.ceil(p * 2 ** 16);
  if (!(N > 0) || N >= 2 ** 16) return full([rows, rowLength], N >= 2 ** 16, "bool");
  const pairs = offset instanceof Array ? shiftRightLogical(astype(offset, "u32").reshape([]), 1) : (offset >>> 0) / 2;
  const h = reshape(flatBits(key, rows * half, pairs), [rows, half]);
  // The high half is below N exactly when the whole word is below N·2^16: no shift needed.
  const low = compare(bitAnd(h, 0xffff), N, "lt");
  const high = compare(h, N * 2 ** 16, "lt");
  return concat([low, high], 1);
}

/** Integers uniformly in [low, high) (i32). */
export function randint(key: Array, shape: Shape, low: number, high: number): Array {
  if (!(high > low)) throw new Error(`randint needs high > low, got [${low}, ${high})`);
  const u = uniform(key, shape);
  return add(astype(mul(u, high - low), "i32"), low);
}
