// Contractions and reductions. Sums of bf16/f16 accumulate in f32 and round once at the end (the
// IR's reference rounds once too); f32 matrix products ask for HIGHEST precision, so that an f32
// program computes in f32 rather than TF32 (bf16 programs are the fast path, and get the tensor cores).
import { isFloat, type DType } from "../../../../core/dtype.js";
import { allEquations, type AVal, type PrimParams, type Program } from "../../../../core/ir.js";
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

/** 16-bit float products: the ones XLA:CPU computes in Eigen's scalar loops unless YNNPACK or oneDNN takes them. */
const isHalf = (d: DType) => d === "bf16" || d === "f16";

/**
 * A bf16/f16 product with its left operand laid out [batch…, free…, contracting…]: a transpose first where
 * it is not. XLA:CPU hands a dot to its fast library kernels (YNNPACK or oneDNN in jaxlib 0.11's XLA) only when the
 * left operand contracts over its last dimensions; otherwise the dot runs in Eigen, which computes bf16 in
 * scalar loops. Attention's backward has such products (the value gradient Pᵀ·dO contracts over the query
 * axis of both): in a bf16-mixed step those dots made it slower than f32. The transpose is one copy of the
 * operand. f32 products are left as they are: Eigen's f32 kernels are fast, and the copies cost a causal
 * llama-small step 9% when every product got them.
 */
function lhsContractingLast(emit: FunctionEmitter, a: Value, p: PrimParams["dot_general"]): { lhs: Value; p: PrimParams["dot_general"] } {
  if (!isHalf(a.aval.dtype)) return { lhs: a, p };
  const rank = a.aval.shape.length;
  const free = Array.from({ length: rank }, (_, i) => i).filter((i) => !p.lhsBatch.includes(i) && !p.lhsContract.includes(i));
  const perm = [...p.lhsBatch, ...free, ...p.lhsContract];
  if (perm.every((d, i) => d === i)) return { lhs: a, p };
  const shape = perm.map((d) => a.aval.shape[d]!);
  const lhs = emit.op("stablehlo.transpose", [a], { shape, dtype: a.aval.dtype }, `permutation = ${i64Array(perm)}`);
  const nb = p.lhsBatch.length,
    nf = free.length;
  return {
    lhs,
    p: {
      ...p,
      lhsBatch: p.lhsBatch.map((_, i) => i),
      lhsContract: p.lhsContract.map((_, i) => nb + nf + i),
    },
  };
}

/** Whether a program (its loop bodies included) multiplies bf16 or f16 matrices: see lhsContractingLast. */
export function hasHalfPrecisionProducts(program: Program): boolean {
  for (const e of allEquations(program)) if (e.prim === "dot_general" && isHalf(e.inputs[0]!.aval.dtype)) return true;
  return false;
}

/** Sums over at least this many rows become products by ones (LowerOptions.leadingSumsAsProducts). */
const LEADING_SUM_MIN_ROWS = 256;

/**
 * A float sum over x's leading axes (not all of them) as ones[rows] · x[rows, rest], accumulated in
 * `acc`: a matrix-vector product the CPU's matmul library runs row by row, where XLA:CPU's loop
 * without tree_reduction_rewriter walks each output column down the rows (mlm-small's bf16-mixed step
 * went from 10,000 to 3,900 tokens/s that way). Undefined where it does not apply.
 */
function leadingSumAsProduct(emit: FunctionEmitter, x: Value, axes: readonly number[], acc: DType, out: AVal): Value | undefined {
  const shape = x.aval.shape;
  const sorted = [...axes].sort((a, b) => a - b);
  if ((acc !== "f32" && acc !== "f64") || sorted.length >= shape.length || !sorted.every((a, i) => a === i)) return undefined;
  const rows = shape.slice(0, sorted.length).reduce((n, d) => n * d, 1);
  const cols = shape.slice(sorted.length).reduce((n, d) => n * d, 1);
  if (rows < LEADING_SUM_MIN_ROWS) return undefined;
  const matrix = emit.op("stablehlo.reshape", [convert(emit, x, acc)], { shape: [rows, cols], dtype: acc });
  const sum = dotGeneral(
    emit,
    emit.splat(acc, [rows], 1),
    matrix,
    { lhsContract: [0], rhsContract: [0], lhsBatch: [], rhsBatch: [] },
    { shape: [cols], dtype: acc },
  );
  return convert(emit, emit.op("stablehlo.reshape", [sum], { shape: out.shape, dtype: acc }), out.dtype);
}

/** stablehlo.dot_general of two values as laid out; f32/f64 products at HIGHEST precision. */
function dotGeneral(emit: FunctionEmitter, a: Value, b: Value, p: PrimParams["dot_general"], out: AVal): Value {
  const numbers = [
    ...dims("lhs_batching_dimensions", p.lhsBatch),
    ...dims("rhs_batching_dimensions", p.rhsBatch),
    ...dims("lhs_contracting_dimensions", p.lhsContract),
    ...dims("rhs_contracting_dimensions", p.rhsContract),
  ];
  const d = a.aval.dtype;
  const precision = d === "f32" || d === "f64" ? "HIGHEST" : "DEFAULT";
  return emit.op(
    "stablehlo.dot_general",
    [a, b],
    out,
    `dot_dimension_numbers = #stablehlo.dot<${numbers.join(", ")}>, ` +
      `precision_config = [#stablehlo<precision ${precision}>, #stablehlo<precision ${precision}>]`,
  );
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
  dot_general: (cx, [a, b], params, out) => {
    const { lhs, p } = lhsContractingLast(cx.emit, a!, params);
    return dotGeneral(cx.emit, lhs, b!, p, out);
  },
  reduce_sum: (cx, [x], { axes }, out) => {
    if (axes.length === 0) return x!;
    const acc = accumulationType(out.dtype);
    const product = cx.leadingSumsAsProducts ? leadingSumAsProduct(cx.emit, x!, axes, acc, out) : undefined;
    if (product) return product;
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
