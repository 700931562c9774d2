// Constant literals in MLIR's `dense<...>` syntax, exact for every dtype:
// - f32/f64 as shortest round-trip decimals (always with a '.', which MLIR's float grammar requires);
// - bf16/f16 and non-finite floats as hexadecimal bit patterns (no decimal detour at all);
// - non-splat arrays as a hex blob of the raw little-endian element bytes, except bool, whose hex
//   form packs bits in MLIR and is therefore written as a nested list of true/false.
import type { DType, HostArray } from "../../../core/dtype.js";
import { toBf16Bits, toF16Bits, itemSize } from "../../../core/dtype.js";
import type { AVal } from "../../../core/ir.js";
import type { Shape } from "../../../core/shape.js";
import { sizeOf } from "../../../core/shape.js";

const f32 = new Float32Array(1),
  f32Bits = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1),
  f64Bits = new BigUint64Array(f64.buffer);

function hexBits(bits: number | bigint, digits: number): string {
  return `0x${bits.toString(16).toUpperCase().padStart(digits, "0")}`;
}

/** A finite double as a decimal MLIR parses back to the same value. */
function decimal(x: number): string {
  if (Object.is(x, -0)) return "-0.0";
  const s = String(x);
  if (s.includes(".")) return s;
  const e = s.indexOf("e");
  return e < 0 ? `${s}.0` : `${s.slice(0, e)}.0${s.slice(e)}`;
}

/** One element of dtype d from a JS number (rounded to d as a store would; bool: nonzero is true). */
export function scalarLiteral(d: DType, x: number | bigint): string {
  switch (d) {
    case "bool":
      return x ? "true" : "false";
    case "i32":
    case "u32":
    case "i64":
      return typeof x === "bigint" ? x.toString() : String(Math.trunc(x));
    case "f32":
      if (Number.isFinite(Number(x))) return decimal(Math.fround(Number(x)));
      f32[0] = Number(x);
      return hexBits(f32Bits[0]!, 8);
    case "f64":
      if (Number.isFinite(Number(x))) return decimal(Number(x));
      f64[0] = Number(x);
      return hexBits(f64Bits[0]!, 16);
    case "bf16":
      return bitsLiteral16(toBf16Bits(Number(x)));
    case "f16":
      return bitsLiteral16(toF16Bits(Number(x)));
  }
}

/** A 16-bit float element from its raw bits. */
function bitsLiteral16(bits: number): string {
  return hexBits(bits & 0xffff, 4);
}

/** Element i of host data as a literal. */
function elementLiteral(d: DType, data: HostArray, i: number): string {
  if (d === "bf16" || d === "f16") return bitsLiteral16((data as Uint16Array)[i]!);
  return scalarLiteral(d, (data as Float64Array | BigInt64Array)[i]!);
}

function bytesOf(data: HostArray): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function isSplat(data: HostArray, size: number): boolean {
  const b = bytesOf(data);
  for (let i = size; i < b.length; i++) if (b[i] !== b[i % size]) return false;
  return true;
}

function nestedList(d: DType, data: HostArray, shape: Shape): string {
  const walk = (dim: number, offset: number): string => {
    if (dim === shape.length) return elementLiteral(d, data, offset);
    const stride = sizeOf(shape.slice(dim + 1));
    const items = Array.from({ length: shape[dim]! }, (_, i) => walk(dim + 1, offset + i * stride));
    return `[${items.join(", ")}]`;
  };
  return walk(0, 0);
}

/** `dense<...>` for a whole array (the attribute value, without its `: tensor<...>` type). */
export function denseLiteral(aval: AVal, data: HostArray): string {
  const n = sizeOf(aval.shape),
    d = aval.dtype;
  if (data.length !== n) throw new Error(`constant of ${d}[${aval.shape.join(",")}] has ${data.length} elements`);
  if (n === 0) return "dense<>";
  if (isSplat(data, itemSize(d))) return `dense<${elementLiteral(d, data, 0)}>`;
  if (d === "bool") return `dense<${nestedList(d, data, aval.shape)}>`;
  const hex = Array.from(bytesOf(data), (b) => b.toString(16).toUpperCase().padStart(2, "0")).join("");
  return `dense<"0x${hex}">`;
}
