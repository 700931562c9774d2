// Element types and their host representations.
//
// bf16 and f16 have no native JS typed array: their values are stored as raw 16-bit patterns in a
// Uint16Array and widened whenever they are computed with, then rounded back once (to nearest even, from
// the value as computed), which is what an accelerator's bf16/f16 arithmetic with f32 accumulation does.

/** The element types an Array can hold. */
export type DType = "f32" | "f64" | "bf16" | "f16" | "i32" | "u32" | "bool" | "i64";

/** Every DType. */
export const DTYPES: readonly DType[] = ["f32", "f64", "bf16", "f16", "i32", "u32", "bool", "i64"];

/** The typed arrays that hold an Array's values on the host (bf16 and f16 as raw 16-bit patterns, bool as bytes). */
export type HostArray = Float32Array | Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array | BigInt64Array;

/** The host array a dtype's data comes back as (`HostArrayOf<"f32">` is Float32Array; of DType, any of them). */
export type HostArrayOf<D extends DType> = D extends "f32"
  ? Float32Array
  : D extends "f64"
    ? Float64Array
    : D extends "i32"
      ? Int32Array
      : D extends "u32"
        ? Uint32Array
        : D extends "bf16" | "f16"
          ? Uint16Array
          : D extends "bool"
            ? Uint8Array
            : D extends "i64"
              ? BigInt64Array
              : never;

/** The dtype a typed array holds when none is given (a Uint16Array needs one: bf16 or f16). */
export type DTypeOfHost<H> = H extends Float32Array
  ? "f32"
  : H extends Float64Array
    ? "f64"
    : H extends Int32Array
      ? "i32"
      : H extends Uint32Array
        ? "u32"
        : H extends Uint8Array
          ? "bool"
          : H extends BigInt64Array
            ? "i64"
            : DType;

/** Whether `d` is a floating-point dtype (f32, f16, bf16, f64). */
export function isFloat(d: DType): boolean {
  return d === "f32" || d === "f64" || d === "bf16" || d === "f16";
}
/** Whether `d` is an integer type (i32, u32, i64). */
export function isInt(d: DType): boolean {
  return d === "i32" || d === "u32" || d === "i64";
}

/** Bytes per element of `d`. */
export function itemSize(d: DType): number {
  switch (d) {
    case "f64":
    case "i64":
      return 8;
    case "f32":
    case "i32":
    case "u32":
      return 4;
    case "bf16":
    case "f16":
      return 2;
    case "bool":
      return 1;
  }
}

/** A zeroed host array of `n` elements of dtype `d`. */
export function allocHost(d: DType, n: number): HostArray {
  switch (d) {
    case "f32":
      return new Float32Array(n);
    case "f64":
      return new Float64Array(n);
    case "i32":
      return new Int32Array(n);
    case "u32":
      return new Uint32Array(n);
    case "bf16":
    case "f16":
      return new Uint16Array(n);
    case "bool":
      return new Uint8Array(n);
    case "i64":
      return new BigInt64Array(n);
  }
}

/** A typed-array view of `d` over existing bytes (no copy). */
export function viewHost(d: DType, buf: ArrayBufferLike, byteOffset: number, n: number): HostArray {
  switch (d) {
    case "f32":
      return new Float32Array(buf, byteOffset, n);
    case "f64":
      return new Float64Array(buf, byteOffset, n);
    case "i32":
      return new Int32Array(buf, byteOffset, n);
    case "u32":
      return new Uint32Array(buf, byteOffset, n);
    case "bf16":
    case "f16":
      return new Uint16Array(buf, byteOffset, n);
    case "bool":
      return new Uint8Array(buf, byteOffset, n);
    case "i64":
      return new BigInt64Array(buf, byteOffset, n);
  }
}

// ---- 16-bit float conversions (one round to nearest even, from the exact double) ----
// Rounding a double to f32 first and then to 16 bits would round twice: 1 + 2^-8 + 2^-30 becomes the tie
// 1 + 2^-8 in f32 and then 1 in bf16, where the correctly rounded bf16 value is 1 + 2^-7.
const f32buf = new Float32Array(1);
const u32buf = new Uint32Array(f32buf.buffer);

/**
 * x rounded once, to nearest even, to a binary float format with `precision` significand bits (the
 * implicit one included), smallest normal exponent `minExp` and largest finite value `maxFinite`:
 * subnormals keep the quantum of the smallest normal, and values past the largest finite round to ±∞.
 */
function roundToFormat(x: number, precision: number, minExp: number, maxFinite: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const ax = Math.abs(x);
  let e = Math.floor(Math.log2(ax));
  if (2 ** e > ax) e--;
  else if (2 ** (e + 1) <= ax) e++;
  const quantumExp = Math.max(e, minExp) - (precision - 1);
  const scaled = ax * 2 ** -quantumExp; // exact: a power-of-two scaling into [0, 2^precision)
  const floor = Math.floor(scaled);
  const rest = scaled - floor;
  const n = rest > 0.5 || (rest === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
  const rounded = n * 2 ** quantumExp;
  const v = rounded > maxFinite ? Infinity : rounded;
  return x < 0 ? -v : v;
}

const BF16_MAX = (2 - 2 ** -7) * 2 ** 127;
const F16_MAX = 65504;

/** The bf16 bit pattern of x, rounded once to nearest even (NaN → a quiet NaN). */
export function toBf16Bits(x: number): number {
  f32buf[0] = Number.isNaN(x) ? x : roundToFormat(x, 8, -126, BF16_MAX); // exact in f32
  const u = u32buf[0]!;
  if ((u & 0x7f800000) === 0x7f800000 && (u & 0x7fffff) !== 0) return ((u >>> 16) | 0x40) & 0xffff; // quiet NaN
  return u >>> 16;
}
/** The number a bf16 bit pattern stands for. */
export function bf16BitsToF32(b: number): number {
  u32buf[0] = b << 16;
  return f32buf[0]!;
}

/** The f16 bit pattern of x, rounded once to nearest even (NaN → a quiet NaN). */
export function toF16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const v = roundToFormat(x, 11, -14, F16_MAX); // exactly representable in f16 (and f32)
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const av = Math.abs(v);
  if (av === Infinity) return sign | 0x7c00;
  if (av < 2 ** -14) return sign | (av * 2 ** 24); // subnormal (or zero): a multiple of 2^-24
  f32buf[0] = av;
  const u = u32buf[0]!;
  const exp = ((u >>> 23) & 0xff) - 127 + 15;
  return sign | (exp << 10) | ((u & 0x7fffff) >>> 13);
}
/** The number an f16 bit pattern stands for. */
export function f16BitsToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** Rounds a JS number to what `d` can hold (the value an element of that dtype would read back as). */
export function roundTo(d: DType, x: number): number {
  switch (d) {
    case "f64":
      return x;
    case "f32":
      return Math.fround(x);
    case "bf16":
      return bf16BitsToF32(toBf16Bits(x));
    case "f16":
      return f16BitsToF32(toF16Bits(x));
    case "i32":
      return x | 0;
    case "u32":
      return x >>> 0;
    case "bool":
      return x ? 1 : 0;
    case "i64":
      return Math.trunc(x);
  }
}

/** Reads element i of a host array of dtype d as a JS number. */
export function readElem(d: DType, a: HostArray, i: number): number {
  if (d === "bf16") return bf16BitsToF32((a as Uint16Array)[i]!);
  if (d === "f16") return f16BitsToF32((a as Uint16Array)[i]!);
  if (d === "i64") return Number((a as BigInt64Array)[i]!);
  return (a as Float64Array)[i]!;
}

/** Writes a JS number into element i, converting to the storage format of d. */
export function writeElem(d: DType, a: HostArray, i: number, x: number): void {
  if (d === "bf16") (a as Uint16Array)[i] = toBf16Bits(x);
  else if (d === "f16") (a as Uint16Array)[i] = toF16Bits(x);
  else if (d === "i64") (a as BigInt64Array)[i] = BigInt(Math.trunc(x));
  else if (d === "bool") (a as Uint8Array)[i] = x ? 1 : 0;
  else (a as Float64Array)[i] = x;
}

/** Host data of dtype d as plain numbers (f64), e.g. to compute with. */
export function toNumbers(d: DType, a: HostArray): Float64Array {
  const out = new Float64Array(a.length);
  if (d === "bf16" || d === "f16" || d === "i64") for (let i = 0; i < a.length; i++) out[i] = readElem(d, a, i);
  else out.set(a as Float64Array);
  return out;
}

/** Numbers → host data of dtype d (rounded to d). */
export function fromNumbers(d: DType, xs: ArrayLike<number>): HostArray {
  const out = allocHost(d, xs.length);
  if (d === "bf16" || d === "f16" || d === "i64" || d === "bool") for (let i = 0; i < xs.length; i++) writeElem(d, out, i, xs[i]!);
  else (out as Float64Array).set(xs);
  return out;
}

/** The dtype whose values a host typed array holds. */
export function dtypeOfHost(a: HostArray): DType {
  if (a instanceof Float32Array) return "f32";
  if (a instanceof Float64Array) return "f64";
  if (a instanceof Int32Array) return "i32";
  if (a instanceof Uint32Array) return "u32";
  if (a instanceof Uint8Array) return "bool";
  if (a instanceof BigInt64Array) return "i64";
  throw new Error("a Uint16Array is ambiguous (bf16 or f16): pass the dtype explicitly");
}

// Promotion for mixed-dtype arithmetic, JAX-style: floats win over ints, wider floats over narrower;
// bf16 with f16 meets at f32. Integers must agree (no silent int widening).
const FLOAT_RANK: Partial<Record<DType, number>> = { bf16: 1, f16: 1, f32: 2, f64: 3 };
/** The dtype of a binary operation's result on operands of dtypes `a` and `b`. */
export function promoteTypes(a: DType, b: DType): DType {
  if (a === b) return a;
  if (a === "bool") return b;
  if (b === "bool") return a;
  const fa = FLOAT_RANK[a],
    fb = FLOAT_RANK[b];
  if (fa !== undefined && fb !== undefined) return fa === fb ? "f32" : fa > fb ? a : b;
  if (fa !== undefined) return a;
  if (fb !== undefined) return b;
  throw new TypeError(`cannot mix integer dtypes ${a} and ${b}: convert one with .astype("${a}") or .astype("${b}")`);
}
