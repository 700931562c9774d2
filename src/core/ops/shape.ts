// Shape and layout operations.
import type { Array } from "../array.js";
import type { Shape } from "../shape.js";
import { fmtShape, normAxes, normAxis, shapesEqual } from "../shape.js";
import { bind } from "./dispatch.js";

/** Reshape; one dimension may be -1 (inferred). */
export function reshape(x: Array, shape: readonly number[]): Array {
  const unknown = shape.indexOf(-1);
  let s = [...shape];
  if (unknown >= 0) {
    const known = shape.reduce((a, d, i) => (i === unknown ? a : a * d), 1);
    if (known === 0 || x.size % known !== 0) throw new Error(`cannot reshape ${fmtShape(x.shape)} to ${fmtShape(shape)}`);
    s[unknown] = x.size / known;
  }
  if (shapesEqual(s, x.shape)) return x;
  return bind("reshape", [x], { shape: s });
}

/** Permutes dimensions (default: reversed). */
export function transpose(x: Array, perm?: readonly number[]): Array {
  const p = perm ? perm.map((a) => normAxis(a, x.ndim)) : x.shape.map((_, i) => x.ndim - 1 - i);
  if (p.every((a, i) => a === i)) return x;
  return bind("transpose", [x], { perm: p });
}

/** Numpy broadcasting to a target shape (aligned at the trailing dimensions). */
export function broadcastTo(x: Array, shape: Shape): Array {
  if (shapesEqual(x.shape, shape)) return x;
  const offset = shape.length - x.ndim;
  if (offset < 0) throw new Error(`cannot broadcast ${fmtShape(x.shape)} to the lower-rank shape ${fmtShape(shape)}`);
  x.shape.forEach((d, i) => {
    if (d !== 1 && d !== shape[offset + i]) throw new Error(`cannot broadcast ${fmtShape(x.shape)} to ${fmtShape(shape)}`);
  });
  return bind("broadcast_in_dim", [x], { shape: [...shape], dims: x.shape.map((_, i) => offset + i) });
}

/** `x` with a new axis of size 1 at `axis`. */
export function expandDims(x: Array, axis: number): Array {
  const a = normAxis(axis, x.ndim + 1);
  return reshape(x, [...x.shape.slice(0, a), 1, ...x.shape.slice(a)]);
}

/** `x` without the size-1 axes in `axes` (default: every size-1 axis). */
export function squeeze(x: Array, axes?: number | readonly number[]): Array {
  const drop = axes === undefined ? x.shape.flatMap((d, i) => (d === 1 ? [i] : [])) : normAxes(axes, x.ndim);
  for (const a of drop) if (x.shape[a] !== 1) throw new Error(`cannot squeeze axis ${a} of size ${x.shape[a]} in ${fmtShape(x.shape)}`);
  return reshape(
    x,
    x.shape.filter((_, i) => !drop.includes(i)),
  );
}

/** x[start0:limit0, start1:limit1, …]; negative bounds count from the end. */
export function slice(x: Array, start: readonly number[], limit: readonly number[]): Array {
  const s = x.shape.map((d, i) => {
    const v = start[i] ?? 0;
    return v < 0 ? v + d : v;
  });
  const l = x.shape.map((d, i) => {
    const v = limit[i] ?? d;
    return v < 0 ? v + d : v;
  });
  if (s.every((v) => v === 0) && l.every((v, i) => v === x.shape[i])) return x;
  return bind("slice", [x], { start: s, limit: l });
}

/** Slice along one axis: x[..., start:limit, ...]. */
export function sliceAxis(x: Array, axis: number, start: number, limit: number): Array {
  const a = normAxis(axis, x.ndim);
  return slice(
    x,
    x.shape.map((_, i) => (i === a ? start : 0)),
    x.shape.map((d, i) => (i === a ? limit : d)),
  );
}

/** The arrays joined along an existing `axis`. */
export function concat(xs: readonly Array[], axis = 0): Array {
  if (xs.length === 0) throw new Error("concat needs at least one array");
  if (xs.length === 1) return xs[0]!;
  return bind("concatenate", xs, { axis: normAxis(axis, xs[0]!.ndim) });
}

/** The arrays (of one shape) stacked along a new `axis`. */
export function stack(xs: readonly Array[], axis = 0): Array {
  if (xs.length === 0) throw new Error("stack needs at least one array");
  return concat(
    xs.map((x) => expandDims(x, axis)),
    axis,
  );
}

/** Splits into `sizes` along an axis (static sizes). */
export function split(x: Array, sizes: readonly number[], axis = 0): Array[] {
  const a = normAxis(axis, x.ndim);
  if (sizes.reduce((p, q) => p + q, 0) !== x.shape[a])
    throw new Error(`split sizes [${sizes.join(",")}] do not add up to dimension ${a} of ${fmtShape(x.shape)}`);
  let at = 0;
  return sizes.map((n) => sliceAxis(x, a, at, (at += n)));
}

/** Pads with a constant; `widths[i] = [before, after]` (negative crops). */
export function pad(x: Array, widths: readonly (readonly [number, number])[], value = 0): Array {
  if (widths.length !== x.ndim) throw new Error(`pad needs ${x.ndim} [before, after] pairs for ${fmtShape(x.shape)}, got ${widths.length}`);
  return bind("pad", [x], { low: widths.map((w) => w[0]), high: widths.map((w) => w[1]), value });
}
