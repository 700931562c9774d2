// Creation and indexing: iota, take (Gather on clamped indices), scatter_add (ScatterElements with
// reduction "add": the CPU provider's ScatterND add is wrong with more than one thread), collectives.
import { fromNumbers } from "../../core/dtype.js";
import type { GraphBuilder, Val } from "./graph-builder.js";
import { computeDtype } from "./graph-builder.js";
import type { Lowering } from "./lowering-signature.js";
import { scatterRows } from "./row-kernels.js";

/** The counts along `dim` as a constant with size-1 dims elsewhere (a lazy broadcast: no full-size data). */
const iota: Lowering<"iota"> = (g, _ins, { shape, dim, dtype }) => {
  const n = shape[dim]!;
  const actual = shape.map((d, i) => (i === dim ? d : 1));
  const c = g.constant(
    dtype,
    actual,
    fromNumbers(
      dtype,
      Array.from({ length: n }, (_, i) => i),
    ),
  );
  return { ...c, full: shape };
};

/** Indices clamped into [0, n) (Kiln's take and scatter_add clamp, as XLA does) as i32 or i64. */
export function clampIndices(g: GraphBuilder, idx: Val, n: number): Val {
  const d = idx.dtype;
  const clipped = g.elementwise("Clip", [idx, g.scalar(d, 0), g.scalar(d, Math.max(n - 1, 0))], d);
  // Gather and ScatterElements take int32 or int64 indices; u32 values fit in int64.
  return d === "u32" ? g.cast(clipped, "i64") : clipped;
}

const take: Lowering<"take"> = (g, [x, idx], { axis }, out) => {
  const v = g.materialize(x!);
  const i = clampIndices(g, idx!, v.shape[axis]!);
  const name = g.node("Gather", [v.name, i.name], { axis: { kind: "int", value: axis } });
  // A broadcast index array gives a result broadcast along the same dims.
  const shape = [...v.shape.slice(0, axis), ...i.shape, ...v.shape.slice(axis + 1)];
  return { name, dtype: v.dtype, shape, full: out.shape };
};

const scatterAdd: Lowering<"scatter_add"> = (g, [x, idx, upd], { axis }, out) => {
  // 16-bit floats accumulate in f32; bool adds as i32 (any nonzero sum is true).
  const c = x!.dtype === "bool" ? "i32" : computeDtype(x!.dtype);
  const base = g.cast(g.materialize(x!), c);
  const m = idx!.full.reduce((a, b) => a * b, 1);
  const rank = base.shape.length;
  const updShape = [...base.shape.slice(0, axis), m, ...base.shape.slice(axis + 1)];
  const updates = g.cast(g.reshape(g.materialize(upd!), updShape), c);
  const i = g.cast(g.materialize(clampIndices(g, idx!, base.shape[axis]!)), "i32");
  // An embedding's gradient (rows added into a large table): the generated kernel, where the graph has them.
  if (rank === 2 && axis === 0) {
    const rows = scatterRows(g, base, g.reshape(i, [m]), updates);
    if (rows) return g.cast(rows, out.dtype);
  }
  const table = rank === 2 && axis === 0 && (c === "f32" || c === "f64") ? base.shape[0]! : Infinity;
  if (table <= ONE_HOT_MAX_ROWS && m >= ONE_HOT_MIN_UPDATES)
    return g.cast(oneHotScatter(g, base, g.reshape(i, [m, 1]), updates), out.dtype);
  // ScatterElements wants one index per update element: the index of row j, repeated over the other dims.
  const column = g.reshape(
    i,
    Array.from({ length: rank }, (_, d) => (d === axis ? m : 1)),
  );
  const indices = g.materialize({ ...column, full: updShape });
  const name = g.node("ScatterElements", [base.name, indices.name, updates.name], {
    axis: { kind: "int", value: axis },
    reduction: { kind: "string", value: "add" },
  });
  return g.cast({ ...base, name }, out.dtype);
};

/**
 * Rows added into a small table (a position or token-type embedding's gradient) as a product:
 * table + onehot(idx)ᵀ · updates. ORT's ScatterElements adds element by element on one thread, 8 ms
 * for mlm-small's 4096 rows of 256 into 132; the product is 2·rows·m·width multiply-adds, cheaper than
 * that below about a thousand rows.
 */
function oneHotScatter(g: GraphBuilder, base: Val, column: Val, updates: Val): Val {
  const [rows, width] = base.shape as [number, number];
  const c = base.dtype;
  const rowIds = g.constant(
    "i32",
    [1, rows],
    Int32Array.from({ length: rows }, (_, r) => r),
  );
  const oneHot = g.cast(g.elementwise("Equal", [column, rowIds], "bool"), c);
  const added = g.node("Gemm", [g.materialize(oneHot).name, updates.name], { transA: { kind: "int", value: 1 } });
  return g.elementwise("Add", [base, { name: added, dtype: c, shape: [rows, width], full: [rows, width] }], c);
}

/** Tables of at most this many rows take oneHotScatter, for at least this many updated rows. */
const ONE_HOT_MAX_ROWS = 512;
const ONE_HOT_MIN_UPDATES = 256;

/** Sum over replicas: one Sum (floats) or a chain of Adds (the CPU provider's Sum is float-only). */
const allReduce: Lowering<"all_reduce"> = (g, [x], _p, out, replicas) => {
  if (!replicas || replicas.length < 2) return x!;
  const c = computeDtype(out.dtype);
  const parts = replicas.map((v) => g.cast(v, c));
  const sum =
    c === "f32" || c === "f64"
      ? g.elementwise("Sum", parts, c)
      : parts.slice(1).reduce((acc, v) => g.elementwise("Add", [acc, v], c), parts[0]!);
  return g.cast(sum, out.dtype);
};

export const INDEXING_LOWERINGS = { iota, take, scatter_add: scatterAdd, all_reduce: allReduce };
