// Contractions and reductions: dot_general as one (batched) MatMul, reductions with axes as inputs
// (opset 18+), cumulative sums.
import type { DType } from "../../core/dtype.js";
import type { Shape } from "../../core/shape.js";
import type { PrimParams } from "../../core/ir.js";
import { GraphBuilder, computeDtype, type Val } from "./graph-builder.js";
import { attr, MS_DOMAIN, ONNX_TYPE, type GraphDef, type ValueInfoDef } from "../../io/onnx/proto.js";
import { sizeOf } from "../../core/shape.js";
import type { Lowering } from "./lowering-signature.js";
import { transposeMatrix } from "./row-kernels.js";

const prod = (v: Val, dims: readonly number[]) => dims.reduce((n, d) => n * v.shape[d]!, 1);
const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** An operand brought to [...batch, rows, cols], or to its transpose when `transposed`. */
interface Arranged {
  v: Val;
  transposed: boolean;
}

/**
 * Brings a materialized operand to [...batch, |first|, |second|]. When the operand's dims already come
 * in the order batch, first, second this is a Reshape (free); when they come as batch, second, first it
 * is a Reshape to the swapped matrix, marked `transposed` for the product to read it transposed instead
 * of copying it. Other orders need a real Transpose, unless the operand was already transposed to the
 * swapped matrix for another product: attention's keys are [batch, heads, dim, keys] for the scores and
 * [batch, heads, keys, dim] for the queries' gradient, its values the other way round for the context and
 * the probabilities' gradient, and each was transposed twice (the second, 2 of mlm-small's 7 [32, 128, 4,
 * 64] Transposes per layer, is now a product reading the first transposed).
 */
function arrange(g: GraphBuilder, v: Val, batch: readonly number[], first: readonly number[], second: readonly number[]): Arranged {
  const batchShape = batch.map((d) => v.shape[d]!);
  const target = [...batchShape, prod(v, first), prod(v, second)];
  const rest = v.shape.map((_, i) => i).filter((i) => !batch.includes(i));
  const leadingBatch = same(
    batch,
    batch.map((_, i) => i),
  );
  if (leadingBatch && same(rest, [...first, ...second])) return { v: g.reshape(v, target), transposed: false };
  if (leadingBatch && same(rest, [...second, ...first]))
    return { v: g.reshape(v, [...batchShape, prod(v, second), prod(v, first)]), transposed: true };
  const swapped = g.writtenTranspose(v, [...batch, ...second, ...first]);
  if (swapped) return { v: g.reshape(swapped, [...batchShape, prod(v, second), prod(v, first)]), transposed: true };
  return { v: g.reshape(g.transpose(v, [...batch, ...first, ...second]), target), transposed: false };
}

/** The matrix an Arranged operand stands for, as a swap of its last two dims where it is transposed. */
function untransposed(g: GraphBuilder, a: Arranged): Val {
  if (!a.transposed) return a.v;
  const n = a.v.shape.length;
  return g.transpose(a.v, [...a.v.shape.slice(0, -2).map((_, i) => i), n - 1, n - 2]);
}

/**
 * x · W with W a constant matrix (weights compiled into the graph) and x contracted over its last dim:
 * one MatMul of x as it is by W laid out [in, out] on the host, which ORT packs once per session. The
 * Gemm form would reshape x to a matrix and the product back, two nodes around every projection.
 */
function constantMatrixProduct(g: GraphBuilder, a: Val, b: Val, p: PrimParams["dot_general"]): Val | undefined {
  const w = g.initializerData.get(b.name);
  const last = a.shape.length - 1;
  if (!w || b.shape.length !== 2 || p.lhsBatch.length || p.lhsContract.length !== 1 || p.lhsContract[0] !== last) return undefined;
  if (p.rhsContract.length !== 1 || a.shape.length < 2) return undefined;
  const [rows, cols] = b.shape as [number, number];
  let matrix = b;
  if (p.rhsContract[0] === 1)
    matrix = g.derivedConstant(`transposed ${b.name}`, () => {
      const data = w.data;
      const t = new (data.constructor as new (n: number) => typeof data)(data.length);
      for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) t[j * rows + i] = data[i * cols + j]!;
      return { dtype: w.dtype, shape: [cols, rows], data: t };
    });
  const shape = [...a.shape.slice(0, last), matrix.shape[1]!];
  return { name: g.node("MatMul", [a.name, matrix.name]), dtype: a.dtype, shape, full: shape };
}

/**
 * Rows of the left operand at most this many: each row is a product of its own (see rowByRowProduct).
 * Timed on [16 × rows × 64] · [16 × 64 × 256] products with the right operand an input (2 cores):
 * 2 rows 48 µs packed against 40 µs row by row; 3 rows 55-60 µs either way; 4 rows packed is faster.
 */
const ROW_BY_ROW_MAX = 2;

/**
 * A product whose left matrices have 2 rows and whose right operand is computed (not a constant):
 * one product per left row, the right operand broadcast over a new size-1 dim ([..., rows, 1, k] ·
 * [..., 1, k, n]). ORT's MatMul (MLAS) copies a right operand into a packed layout before every
 * product of more than one row, but multiplies a single row by it in place; a decode step's grouped
 * query heads (2 rows per key/value head) against the whole key/value cache were packed that way, a
 * seventh of a llama-small decode call at batch 8. Batched products only, where ORT folds the
 * transpose of a right operand read transposed into the MatMul (a matrix product keeps Gemm's transB).
 */
function rowByRowProduct(g: GraphBuilder, A: Arranged, B: Arranged, b: Val, rows: number): Val | undefined {
  const rank = A.v.shape.length;
  if (rows < 2 || rows > ROW_BY_ROW_MAX || rank < 3 || A.transposed || g.initializerData.has(b.name)) return undefined;
  const lhs = g.reshape(A.v, [...A.v.shape.slice(0, -1), 1, A.v.shape[rank - 1]!]);
  const rhs: Arranged = { v: g.reshape(B.v, [...B.v.shape.slice(0, -2), 1, ...B.v.shape.slice(-2)]), transposed: B.transposed };
  const cols = B.v.shape[rank - (B.transposed ? 2 : 1)]!;
  const shape = [...A.v.shape.slice(0, -1), 1, cols];
  return { name: g.node("MatMul", [lhs.name, untransposed(g, rhs).name]), dtype: lhs.dtype, shape, full: shape };
}

/**
 * Aᵀ·B for A [k, m] with many columns, as (Bᵀ·A)ᵀ with both transposes copies made by Kiln's kernels, so
 * that MLAS multiplies untransposed operands. Reading a transposed left operand, MLAS slows as its columns
 * grow. Measured on an Intel Xeon (2 cores), k × m × n as a Gemm with transA against the copies and a
 * MatMul: 4096 × 2048 × 256: 17.7 / 17.5 ms; 4096 × 4096 × 256: 40.6 / 36.9; 2048 × 3072 × 768 (a
 * wide MLP's weight gradient): 43.9 / 41.0; 1016 × 8192 × 256 (a head's weight gradient at batch 8):
 * 23.7 / 19.4; 4064 × 8192 × 256 (at batch 32): 79.2 / 73.3, its two copies under 1.5 ms. Narrower
 * ones keep Gemm's transA (4096 × 1024 × 256: 8.4 / 9.0).
 */
function productOfTransposes(g: GraphBuilder, A: Arranged, B: Arranged): Val | undefined {
  if (!A.transposed || B.transposed) return undefined;
  const m = A.v.shape[1]!,
    n = B.v.shape[1]!;
  if (m < TRANSPOSED_MIN_COLUMNS || n > m) return undefined;
  // Undefined where the graph runs no generated kernels.
  const bT = transposeMatrix(g, B.v);
  if (!bT) return undefined;
  const product: Val = { name: g.node("MatMul", [bT.name, A.v.name]), dtype: "f32", shape: [n, m], full: [n, m] };
  return transposeMatrix(g, product);
}

/** A transposed left operand of at least this many columns is copied untransposed (productOfTransposes). */
const TRANSPOSED_MIN_COLUMNS = 3072;

const dotGeneral: Lowering<"dot_general"> = (g, [lhs, rhs], p, out) => {
  // bf16/f16 operands multiply in f32 (f32 accumulation) and round once to the result dtype.
  const c = computeDtype(lhs!.dtype);
  const a = g.cast(g.materialize(lhs!), c),
    b = g.cast(g.materialize(rhs!), c);
  const constant = g.relayOutConstants && (c === "f32" || c === "f64") ? constantMatrixProduct(g, a, b, p) : undefined;
  if (constant) return g.cast(g.reshape(constant, out.shape), out.dtype);
  const free = (v: Val, contract: readonly number[], batch: readonly number[]) =>
    v.shape.map((_, i) => i).filter((i) => !contract.includes(i) && !batch.includes(i));
  const A = arrange(g, a, p.lhsBatch, free(a, p.lhsContract, p.lhsBatch), p.lhsContract);
  const B = arrange(g, b, p.rhsBatch, p.rhsContract, free(b, p.rhsContract, p.rhsBatch));
  const rows = A.v.shape[A.v.shape.length - (A.transposed ? 1 : 2)]!,
    cols = B.v.shape[B.v.shape.length - (B.transposed ? 2 : 1)]!;
  const mnShape = [...A.v.shape.slice(0, -2), rows, cols];
  const byRow = rowByRowProduct(g, A, B, b, rows);
  if (byRow) return g.cast(g.reshape(byRow, out.shape), out.dtype);
  const swapped = mnShape.length === 2 && c === "f32" ? productOfTransposes(g, A, B) : undefined;
  if (swapped) return g.cast(g.reshape(swapped, out.shape), out.dtype);
  // A product of two matrices reads a transposed operand in place through Gemm's transA/transB. A
  // Transpose before a MatMul is folded into it by ORT's optimizer only while no Add was fused into the
  // MatMul first: the gradient of a tied embedding (logits' cotangent transposed, [4064 × 8192]) was
  // copied that way, 6% of a causal training step.
  // A batched product reads a transposed operand through FusedMatMul's transA/transB (ORT's contrib
  // kernel: f32 only, and in a session's graph only, as an exported model keeps to standard ONNX). A
  // Transpose then a MatMul relied on ORT's optimizer folding them, which it may instead merge with an
  // earlier Transpose into a new copy.
  const trans = { transA: { kind: "int", value: A.transposed ? 1 : 0 }, transB: { kind: "int", value: B.transposed ? 1 : 0 } } as const;
  const gemm = mnShape.length === 2 && (A.transposed || B.transposed) && (c === "f32" || c === "f64");
  const fused = !gemm && (A.transposed || B.transposed) && c === "f32" && g.relayOutConstants;
  const name = gemm
    ? g.node("Gemm", [A.v.name, B.v.name], trans)
    : fused
      ? g.node("FusedMatMul", [A.v.name, B.v.name], trans, MS_DOMAIN)
      : g.node("MatMul", [untransposed(g, A).name, untransposed(g, B).name]);
  const product: Val = { name, dtype: c, shape: mnShape, full: mnShape };
  return g.cast(g.reshape(product, out.shape), out.dtype);
};

/** Reduction axes split into real ones and broadcast ones (a size-1 dimension standing for more). */
function splitAxes(x: Val, axes: readonly number[]) {
  const broadcast = axes.filter((a) => x.shape[a] === 1 && x.full[a] !== 1);
  return { real: axes.filter((a) => !broadcast.includes(a)), broadcast };
}

/** Reduces over `axes` (keepdims 0) and drops the reduced broadcast dims; the result stands for `out`. */
function reduce(g: GraphBuilder, op: string, x: Val, real: readonly number[], axes: readonly number[], outShape: Shape): Val {
  const actual = x.shape.filter((_, i) => !axes.includes(i));
  if (!real.length) return g.reshapeActual(x, actual, outShape);
  const reduced = x.shape.filter((_, i) => !real.includes(i));
  const name =
    (op === "ReduceSum" && sumOfLeadingAxes(g, x, real)) || g.node(op, [x.name, g.int64s(real)], { keepdims: { kind: "int", value: 0 } });
  // A sum along rows may join the pointwise kernel computing its operand (pointwise-groups.ts).
  if (op === "ReduceSum" && real.length === 1 && real[0] === x.shape.length - 1)
    g.noteRowSum(x, { name, dtype: x.dtype, shape: reduced, full: reduced });
  return g.reshapeActual({ name, dtype: x.dtype, shape: reduced, full: reduced }, actual, outShape);
}

/**
 * A float sum over the leading axes of many rows (a bias's gradient: [tokens, width] → [width]) as the
 * product ones[1, rows] · x[rows, width]: ORT's ReduceSum over leading axes walks the rows one by one,
 * twice the time of the product (26 ms of mlm-small's training step). The name of the [width] sum, or
 * undefined where this does not apply.
 */
function sumOfLeadingAxes(g: GraphBuilder, x: Val, real: readonly number[]): string | undefined {
  if ((x.dtype !== "f32" && x.dtype !== "f64") || !real.every((a, i) => a === i)) return undefined;
  const rows = sizeOf(x.shape.slice(0, real.length)),
    width = sizeOf(x.shape.slice(real.length));
  if (rows < LEADING_SUM_MIN_ROWS || width < LEADING_SUM_MIN_WIDTH) return undefined;
  // The values as stored (a dimension broadcast lazily stays size 1 here, as in the ReduceSum it replaces).
  const matrix = g.reshapeActual(x, [rows, width], [rows, width]);
  const ones = g.derivedConstant(`ones|${x.dtype}|${rows}`, () => ({
    dtype: x.dtype,
    shape: [1, rows],
    data: x.dtype === "f32" ? new Float32Array(rows).fill(1) : new Float64Array(rows).fill(1),
  }));
  const sum = g.node("MatMul", [ones.name, matrix.name]);
  return g.reshape({ name: sum, dtype: x.dtype, shape: [1, width], full: [1, width] }, x.shape.slice(real.length)).name;
}

/** Sums over fewer leading rows, or into narrower results, stay ReduceSums (too small to gain). */
const LEADING_SUM_MIN_ROWS = 256;
const LEADING_SUM_MIN_WIDTH = 16;

/**
 * Sum dtypes: 16-bit floats accumulate in f32. 32-bit integers accumulate in i64 and wrap when
 * narrowed back, which is the reference's exact sum modulo 2^32 (ORT has no u32 ReduceSum, and its i32
 * ReduceSum saturates on overflow).
 */
function sumDtype(d: DType): DType {
  return d === "u32" || d === "i32" ? "i64" : computeDtype(d);
}

/**
 * Max dtypes: ORT 1.30's int64 ReduceMax (and Max/Min) on x86 CPUs get values beyond 32 bits wrong,
 * and it has no u32 ReduceMax; f64 holds every u32 exactly and rounds i64 as the reference (which
 * computes in doubles) does.
 */
function maxDtype(d: DType): DType {
  return d === "u32" || d === "i64" ? "f64" : computeDtype(d);
}

const reduceSum: Lowering<"reduce_sum"> = (g, [x], { axes }, out) => {
  const v = g.cast(x!, sumDtype(x!.dtype));
  const { real, broadcast } = splitAxes(v, axes);
  let r = reduce(g, "ReduceSum", v, real, axes, out.shape);
  // Summing n copies of a broadcast value is n times it (one rounding, as summing exactly would be).
  const copies = broadcast.reduce((n, a) => n * v.full[a]!, 1);
  if (copies !== 1) r = g.elementwise("Mul", [r, g.scalar(r.dtype, copies, r.full.length)], r.dtype);
  return g.cast(r, out.dtype);
};

const reduceMax: Lowering<"reduce_max"> = (g, [x], { axes }, out) => {
  const v = g.cast(x!, maxDtype(x!.dtype));
  const { real } = splitAxes(v, axes);
  let r = reduce(g, "ReduceMax", v, real, axes, out.shape);
  const empty = real.some((a) => v.shape[a] === 0); // the max of nothing is -inf: no NaN to propagate
  if (!empty && x!.dtype !== "u32" && x!.dtype !== "i64" && (v.dtype === "f32" || v.dtype === "f64")) {
    // ORT's ReduceMax skips NaN; the reference (and XLA) propagate it.
    const nan = g.scalar(v.dtype, NaN, r.full.length);
    r = g.select(nanAmong(g, v, real, axes, out.shape), nan, r);
  }
  return g.cast(r, out.dtype);
};

/**
 * Whether the values reduced into each output hold a NaN. ORT's IsNaN and its bool ReduceMax both run
 * element by element: over llama-small's [4064, 8192] training logits they took 32 ms of a 950 ms step.
 * A large reduction first sums its values (ReduceSum is vectorized: 6 ms there): a sum that is not NaN
 * proves its values hold none. A NaN sum may also come from +inf and -inf (or overflow) without any NaN,
 * so only when some sum is NaN does an If run the exact element-by-element check.
 */
export function nanAmong(g: GraphBuilder, v: Val, real: readonly number[], axes: readonly number[], outShape: Shape): Val {
  const exact = (b: GraphBuilder) => reduce(b, "ReduceMax", b.elementwise("IsNaN", [v], "bool"), real, axes, outShape);
  if (sizeOf(v.shape) < SUM_FIRST_NAN_CHECK) return exact(g);
  const suspect = g.materialize(g.elementwise("IsNaN", [reduce(g, "ReduceSum", v, real, axes, outShape)], "bool"));
  const anySuspect = g.node("ReduceMax", [suspect.name], { keepdims: { kind: "int", value: 0 } });
  const branch = (name: string, body: (b: GraphBuilder) => Val): GraphDef => {
    const b = new GraphBuilder(g.fresh(name) + "_", g.relayOutConstants);
    const out = b.node("Identity", [b.materialize(body(b)).name]);
    const info: ValueInfoDef = { name: out, dataType: ONNX_TYPE.bool, dims: suspect.full };
    return { name, nodes: b.liveNodes([out]), initializers: b.initializers, inputs: [], outputs: [info] };
  };
  const flags = g.fresh("nan");
  g.nodes.push({
    op: "If",
    inputs: [anySuspect],
    outputs: [flags],
    attrs: { then_branch: attr.graph(branch("exact_nan_check", exact)), else_branch: attr.graph(branch("no_nan", () => suspect)) },
  });
  return { name: flags, dtype: "bool", shape: suspect.full, full: suspect.full };
}

/** Values reduced at or above which nanAmong sums first (below, the exact check costs a few µs). */
const SUM_FIRST_NAN_CHECK = 1 << 20;

const cumsum: Lowering<"cumsum"> = (g, [x], { axis, reverse }, out) => {
  // Along a real axis a broadcast elsewhere stays lazy; along a broadcast axis the values differ.
  const src = x!.shape[axis] === x!.full[axis] ? x! : g.materialize(x!);
  // CumSum has no u32 kernel; its i32 kernel wraps like the reference.
  const v = g.cast(src, src.dtype === "u32" ? "i64" : computeDtype(src.dtype));
  const axisInput = g.constant("i64", [], BigInt64Array.of(BigInt(axis))).name;
  const name = g.node("CumSum", [v.name, axisInput], { reverse: { kind: "int", value: reverse ? 1 : 0 } });
  return g.cast({ ...v, name }, out.dtype);
};

export const CONTRACTION_LOWERINGS = { dot_general: dotGeneral, reduce_sum: reduceSum, reduce_max: reduceMax, cumsum };
