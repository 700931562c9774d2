// Shape and layout primitives. Broadcasts stay lazy (a Reshape that inserts size-1 dimensions); other
// ops keep a broadcast dimension lazy where they can and materialize it only when they must.
import type { Lowering } from "./lowering-signature.js";

/** Operand dim i goes to output dim dims[i]; every other output dim is a size-1 broadcast dimension. */
const broadcastInDim: Lowering<"broadcast_in_dim"> = (g, [x], { shape, dims }) => {
  const actual = shape.map(() => 1);
  dims.forEach((d, i) => {
    actual[d] = x!.shape[i]!;
  });
  return g.reshapeActual(x!, actual, shape);
};

const reshape: Lowering<"reshape"> = (g, [x], { shape }) => {
  // A broadcast scalar stays one element; anything else needs its real elements to be reordered.
  if (x!.shape.every((d) => d === 1))
    return g.reshapeActual(
      x!,
      shape.map(() => 1),
      shape,
    );
  return g.reshape(g.materialize(x!), shape);
};

const transpose: Lowering<"transpose"> = (g, [x], { perm }) => {
  const full = perm.map((p) => x!.full[p]!);
  if (x!.shape.every((d) => d === 1)) return { ...x!, full };
  return g.transpose(x!, perm);
};

const slice: Lowering<"slice"> = (g, [x], { start, limit }) => {
  const v = x!;
  const full = start.map((s, i) => limit[i]! - s);
  // A broadcast dimension (size 1 standing for more) is the same element everywhere: it stays size 1.
  const isBroadcast = (i: number) => v.shape[i] === 1 && v.full[i] !== 1;
  const axes = v.shape.map((_, i) => i).filter((i) => !isBroadcast(i) && (start[i] !== 0 || limit[i] !== v.shape[i]));
  const shape = v.shape.map((_, i) => (isBroadcast(i) ? 1 : full[i]!));
  if (!axes.length) return { ...v, full };
  const name = g.node("Slice", [v.name, g.int64s(axes.map((i) => start[i]!)), g.int64s(axes.map((i) => limit[i]!)), g.int64s(axes)]);
  return { name, dtype: v.dtype, shape, full };
};

const concatenate: Lowering<"concatenate"> = (g, ins, { axis }, out) => {
  const name = g.node(
    "Concat",
    ins.map((v) => g.materialize(v).name),
    { axis: { kind: "int", value: axis } },
  );
  return { name, dtype: out.dtype, shape: out.shape, full: out.shape };
};

const pad: Lowering<"pad"> = (g, [x], { low, high, value }, out) => {
  // The CPU provider has no bf16 Pad; the f32 round trip is exact.
  const c = x!.dtype === "bf16" ? "f32" : x!.dtype;
  const v = g.cast(g.materialize(x!), c);
  const name = g.node("Pad", [v.name, g.int64s([...low, ...high]), g.scalar(c, value).name]);
  return g.cast({ name, dtype: c, shape: out.shape, full: out.shape }, out.dtype);
};

export const LAYOUT_LOWERINGS = { broadcast_in_dim: broadcastInDim, reshape, transpose, slice, concatenate, pad };
