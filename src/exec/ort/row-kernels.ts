// Hand-written kernels over the rows of a matrix (native/pointwise-kernels.h), built into a graph's
// generated library (pointwise-library.ts) where the graph runs generated kernels:
//
// - Softmax rows. A language model's head reads its logits ([tokens, vocabulary]: 133 MB for
//   llama-small's step) for the loss (LogSoftmax), its gradient (Exp of that), and the accuracy (a
//   ReduceMax, and a ReduceSum that guards it against NaN): five passes of ONNX Runtime's. One kernel
//   reads each row once and writes the probabilities, its log-sum-exp and its max; the loss is then
//   log-sum-exp minus the label's logit, the gradient the probabilities, and the accuracy's max is there.
// - Scatter rows. An embedding's gradient adds [tokens, width] rows into its table at the tokens' ids.
//   ONNX Runtime's ScatterElements does it one element at a time on one thread (9.6 ms of llama-small's
//   step); the kernel copies the table and adds whole rows, by bands of columns (pointwise-codegen.ts
//   says why they stay on one thread).
// - Transpose. A matrix copied to its transpose by tiles, for a product that runs faster on it
//   (lower-contraction.ts). ONNX Runtime's own Transpose would be folded back into the product by its
//   optimizer; a kernel of Kiln's is not.
import type { Shape } from "../../core/shape.js";
import { sizeOf } from "../../core/shape.js";
import type { GraphBuilder, Val } from "./graph-builder.js";
import { MIN_GROUP_ELEMENTS, POINTWISE_DOMAIN } from "./pointwise-groups.js";

/** Softmax over the last axis of logits of `shape`. */
export interface SoftmaxRowsKernel {
  readonly kind: "softmax-rows";
  readonly shape: Shape;
}

/** `updates` rows of `width` added into a table of `rows` rows at i32 row indices. */
export interface ScatterRowsKernel {
  readonly kind: "scatter-rows";
  readonly rows: number;
  readonly width: number;
  readonly updates: number;
}

/** The transpose of an f32 matrix of `rows` × `cols`. */
export interface TransposeKernel {
  readonly kind: "transpose";
  readonly rows: number;
  readonly cols: number;
}

export type RowKernel = SoftmaxRowsKernel | ScatterRowsKernel | TransposeKernel;

export function rowKernelName(k: RowKernel): string {
  switch (k.kind) {
    case "softmax-rows":
      return `softmax_rows_${k.shape.join("x")}`;
    case "scatter-rows":
      return `scatter_rows_${k.rows}x${k.width}_${k.updates}`;
    case "transpose":
      return `transpose_${k.rows}x${k.cols}`;
  }
}

const kernels = new WeakMap<GraphBuilder, RowKernel[]>();

/** The row kernels a graph's nodes run. */
export function rowKernels(g: GraphBuilder): readonly RowKernel[] {
  return kernels.get(g) ?? [];
}

/** A node running `kernel` (listed once per graph), returning its outputs' names. */
function addNode(g: GraphBuilder, kernel: RowKernel, inputs: readonly string[], outputs: number): string[] {
  const names = Array.from({ length: outputs }, () => g.fresh());
  const op = rowKernelName(kernel);
  g.nodes.push({ op, domain: POINTWISE_DOMAIN, inputs, outputs: names });
  const list = kernels.get(g) ?? [];
  if (!list.some((k) => rowKernelName(k) === op)) list.push(kernel);
  kernels.set(g, list);
  return names;
}

export interface SoftmaxRows {
  /** softmax(logits) over the last axis, the logits' shape. */
  readonly probs: Val;
  /** log Σ exp over the last axis: the logits' shape less the last axis. */
  readonly logSumExp: Val;
  /** The max over the last axis (NaN where a row holds one), shaped as logSumExp. */
  readonly max: Val;
}

const computed = new WeakMap<GraphBuilder, Map<string, SoftmaxRows>>();

/**
 * The rows' softmax statistics of `logits` (f32, materialized), computed by one node per graph; undefined
 * where the graph has no generated kernels or the logits are too small to pay for one.
 */
export function softmaxRows(g: GraphBuilder, logits: Val): SoftmaxRows | undefined {
  const rank = logits.shape.length;
  if (
    !g.generatedKernels ||
    logits.dtype !== "f32" ||
    rank < 1 ||
    sizeOf(logits.shape) < MIN_GROUP_ELEMENTS ||
    logits.shape[rank - 1]! < 16
  )
    return undefined;
  let byName = computed.get(g);
  if (!byName) computed.set(g, (byName = new Map()));
  const known = byName.get(logits.name);
  if (known) return known;
  const rows = logits.shape.slice(0, -1);
  const [probs, logSumExp, max] = addNode(g, { kind: "softmax-rows", shape: logits.shape }, [logits.name], 3);
  const result: SoftmaxRows = {
    probs: { name: probs!, dtype: "f32", shape: logits.shape, full: logits.shape },
    logSumExp: { name: logSumExp!, dtype: "f32", shape: rows, full: rows },
    max: { name: max!, dtype: "f32", shape: rows, full: rows },
  };
  byName.set(logits.name, result);
  return result;
}

/**
 * `table` (f32 [rows, width], materialized) with row `indices[j]` (i32 [updates], each in [0, rows))
 * plus row j of `updates` (f32 [updates, width]), in the order of j; undefined where the graph has no
 * generated kernels or the table is too small to pay for one.
 */
export function scatterRows(g: GraphBuilder, table: Val, indices: Val, updates: Val): Val | undefined {
  if (!g.generatedKernels || table.dtype !== "f32" || table.shape.length !== 2 || sizeOf(table.shape) < MIN_GROUP_ELEMENTS)
    return undefined;
  const [rows, width] = table.shape as [number, number];
  const kernel: ScatterRowsKernel = { kind: "scatter-rows", rows, width, updates: updates.shape[0]! };
  const [out] = addNode(g, kernel, [table.name, indices.name, updates.name], 1);
  return { name: out!, dtype: "f32", shape: table.shape, full: table.shape };
}

/** The transpose of `matrix` (f32 [rows, cols], materialized) by a kernel; undefined where the graph has no generated kernels. */
export function transposeMatrix(g: GraphBuilder, matrix: Val): Val | undefined {
  if (!g.generatedKernels || matrix.dtype !== "f32" || matrix.shape.length !== 2) return undefined;
  const [rows, cols] = matrix.shape as [number, number];
  const [out] = addNode(g, { kind: "transpose", rows, cols }, [matrix.name], 1);
  return { name: out!, dtype: "f32", shape: [cols, rows], full: [cols, rows] };
}
