// Contractions and reductions. Sums of bf16/f16 accumulate in f32 and round once at the end (the
// IR's reference rounds once too); f32 matrix products ask for HIGHEST precision, so that an f32
// program computes in f32 rather than TF32 (bf16 programs are the fast path, and get the tensor cores).
import { isFloat, type DType } from "../../../../core/dtype.js";
import type { AVal } from "../../../../core/ir.js";
import type { FunctionEmitter, Value } from "../emitter.js";
import { i64Array } from "../types.js";
import { convert } from "./convert.js";
import { compare, select } from "./elementwise.js";
import type { LoweringTable } from "./rule.js";

/** The dtype sums of d accumulate in. */
export function accumulationType(d: DType): DType {
  return d === "bf16" || d === "f16" ? "f32" : d;
}

const LOWEST: Record<DType, number | bigint> = {
  f32: -Infinity,
  f64: -Infinity,
  bf16: -Infinity,
  f16: -Infinity,
  i32: -(2 ** 31),
  u32: 0,
  i64: -(2n ** 63n),
  bool: 0,
};

function dims(name: string, xs: readonly number[]): string[] {
  return xs.length ? [`${name} = [${xs.join(", ")}]`] : []; // empty fields are left out, as StableHLO prints them
}

/** Reduces x over `axes` with `combiner` starting from `init`. */
export function reduce(
  emit: FunctionEmitter,
  x: Value,
  axes: readonly number[],
  combiner: string,
  init: number | bigint,
  out: AVal,
): Value {
  const sorted = [...axes].sort((a, b) => a - b);
  const dtype = x.aval.dtype;
  return emit.opWithRegion(
    "stablehlo.reduce",
    [x, emit.splat(dtype, [], init)],
    { shape: out.shape, dtype },
    { combiner, dtype },
    `dimensions = ${i64Array(sorted)}`,
  );
}

/** Inclusive prefix sums along an axis in log2(n) shifted adds (Hillis–Steele); XLA fuses them. */
function prefixSum(emit: FunctionEmitter, x: Value, axis: number, reverse: boolean): Value {
  const n = x.aval.shape[axis]!,
    rank = x.aval.shape.length;
  let y = x;
  for (let k = 1; k < n; k *= 2) {
    // Shift by k along the axis, zeros entering (negative edge padding drops elements).
    const low = Array.from({ length: rank }, (_, d) => (d === axis ? (reverse ? -k : k) : 0));
    const high = low.map((v) => -v);
    const shifted = emit.op(
      "stablehlo.pad",
      [y, emit.splat(x.aval.dtype, [], 0)],
      y.aval,
      `edge_padding_low = ${i64Array(low)}, edge_padding_high = ${i64Array(high)}, interior_padding = ${i64Array(low.map(() => 0))}`,
    );
    y = emit.op("stablehlo.add", [y, shifted], y.aval);
  }
  return y;
}

export const REDUCE_LOWERINGS: LoweringTable<"dot_general" | "reduce_sum" | "reduce_max" | "cumsum"> = {
  dot_general: (cx, [a, b], p, out) => {
    const numbers = [
      ...dims("lhs_batching_dimensions", p.lhsBatch),
      ...dims("rhs_batching_dimensions", p.rhsBatch),
      ...dims("lhs_contracting_dimensions", p.lhsContract),
      ...dims("rhs_contracting_dimensions", p.rhsContract),
    ];
    const d = a!.aval.dtype;
    const precision = d === "f32" || d === "f64" ? "HIGHEST" : "DEFAULT";
    return cx.emit.op(
      "stablehlo.dot_general",
      [a!, b!],
      out,
      `dot_dimension_numbers = #stablehlo.dot<${numbers.join(", ")}>, ` +
        `precision_config = [#stablehlo<precision ${precision}>, #stablehlo<precision ${precision}>]`,
    );
  },
  reduce_sum: (cx, [x], { axes }, out) => {
    if (axes.length === 0) return x!;
    const acc = accumulationType(out.dtype);
    const sum = reduce(cx.emit, convert(cx.emit, x!, acc), axes, "stablehlo.add", 0, { shape: out.shape, dtype: acc });
    return convert(cx.emit, sum, out.dtype);
  },
  reduce_max: (cx, [x], { axes }, out) => {
    if (axes.length === 0) return x!;
    const max = reduce(cx.emit, x!, axes, "stablehlo.maximum", LOWEST[out.dtype], out);
    if (!isFloat(out.dtype)) return max;
    // A NaN anywhere makes the maximum NaN (see nanPropagating in elementwise.ts for why it is explicit).
    const { emit } = cx;
    const nan = compare(emit, "ne", x!, x!);
    const anyNan = reduce(emit, nan, axes, "stablehlo.or", 0, { shape: out.shape, dtype: "bool" });
    return select(emit, anyNan, emit.splat(out.dtype, out.shape, NaN), max);
  },
  cumsum: (cx, [x], { axis, reverse }, out) => {
    const acc = accumulationType(out.dtype);
    return convert(cx.emit, prefixSum(cx.emit, convert(cx.emit, x!, acc), axis, reverse), out.dtype);
  },
};
