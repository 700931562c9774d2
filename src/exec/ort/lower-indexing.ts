// Creation and indexing: iota, take (Gather on clamped indices), scatter_add (ScatterElements with
// reduction "add": the CPU provider's ScatterND add is wrong with more than one thread), collectives.
import { fromNumbers } from "../../core/dtype.js";
import type { GraphBuilder, Val } from "./graph-builder.js";
import { computeDtype } from "./graph-builder.js";
import type { Lowering } from "./lowering-signature.js";

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
  // ScatterElements wants one index per update element: the index of row j, repeated over the other dims.
  const i = g.cast(g.materialize(clampIndices(g, idx!, base.shape[axis]!)), "i32");
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
