// Element types and their host representations.
//
// bf16 and f16 have no native JS typed array: their values are stored as raw 16-bit patterns in a
// Uint16Array and widened to f32 whenever they are computed with, then rounded back (round to nearest
// even), which is exactly what an accelerator's bf16/f16 arithmetic with f32 accumulation does.

export type DType = "f32" | "f64" | "bf16" | "f16" | "i32" | "u32" | "bool" | "i64";

export const DTYPES: readonly DType[] = ["f32", "f64", "bf16", "f16", "i32", "u32", "bool", "i64"];

export type HostArray = Float32Array | Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array | BigInt64Array;

export function isFloat(d: DType): boolean {
  return d === "f32" || d === "f64" || d === "bf16" || d === "f16";
}
export function isInt(d: DType): boolean {
  return d === "i32" || d === "u32" || d === "i64";
}

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

// ---- 16-bit float conversions (round to nearest even) ----
const f32buf = new Float32Array(1);
const u32buf = new Uint32Array(f32buf.buffer);

export function f32ToBf16Bits(x: number): number {
  f32buf[0] = x;
  const u = u32buf[0]!;
  if ((u & 0x7f800000) === 0x7f800000 && (u & 0x7fffff) !== 0) return ((u >>> 16) | 0x40) & 0xffff; // quiet NaN
  const rounding = 0x7fff + ((u >>> 16) & 1);
  return ((u + rounding) >>> 16) & 0xffff;
}
export function bf16BitsToF32(b: number): number {
  u32buf[0] = b << 16;
  return f32buf[0]!;
}

export function f32ToF16Bits(x: number): number {
  f32buf[0] = x;
  const u = u32buf[0]!;
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  let mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow → inf
  if (e <= 0) {
    if (e < -10) return sign; // underflow → ±0
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mant & ((1 << shift) - 1);
    let h = mant >>> shift;
    if (rest > half || (rest === half && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++;
  return sign | h;
}
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
      return bf16BitsToF32(f32ToBf16Bits(x));
    case "f16":
      return f16BitsToF32(f32ToF16Bits(x));
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
  if (d === "bf16") (a as Uint16Array)[i] = f32ToBf16Bits(x);
  else if (d === "f16") (a as Uint16Array)[i] = f32ToF16Bits(x);
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
