// StableHLO spellings of Kiln's dtypes and abstract values.
import type { DType } from "../../../core/dtype.js";
import type { AVal } from "../../../core/ir.js";

const ELEMENT: Record<DType, string> = {
  f32: "f32",
  f64: "f64",
  bf16: "bf16",
  f16: "f16",
  i32: "i32",
  u32: "ui32",
  bool: "i1",
  i64: "i64",
};

/** `tensor<2x3xf32>`; a scalar is `tensor<f32>`. */
export function tensorType(a: AVal): string {
  return `tensor<${a.shape.map((d) => `${d}x`).join("")}${ELEMENT[a.dtype]}>`;
}

/** The `compare_type` StableHLO needs for comparing two values of dtype d. */
export function comparisonType(d: DType): "FLOAT" | "SIGNED" | "UNSIGNED" {
  if (d === "f32" || d === "f64" || d === "bf16" || d === "f16") return "FLOAT";
  return d === "i32" || d === "i64" ? "SIGNED" : "UNSIGNED"; // bool (i1) compares as unsigned
}

/** `array<i64: 1, 0>` (the dense i64 array attributes of broadcast, transpose, slice, pad, reduce). */
export function i64Array(xs: readonly number[]): string {
  return xs.length ? `array<i64: ${xs.join(", ")}>` : "array<i64>";
}
