// Reductions. Axes may be negative; `keepDims` keeps reduced axes as size 1 (numpy semantics).
import type { Array } from "../array.js";
import { isFloat } from "../dtype.js";
import { normAxes, normAxis } from "../shape.js";
import { bind } from "./dispatch.js";
import { iota } from "./creation.js";
import { astype, compare, div, mul, neg, sub, where } from "./elementwise.js";
import { reshape } from "./shape.js";

type Axes = number | readonly number[] | undefined;
interface KeepDims {
  keepDims?: boolean;
}

function keep(x: Array, r: Array, axes: number[], opts?: KeepDims): Array {
  return opts?.keepDims
    ? reshape(
        r,
        x.shape.map((d, i) => (axes.includes(i) ? 1 : d)),
      )
    : r;
}

/** Sum over `axes` (default all; bool counts as i32), dropping them unless `keepDims`. */
export function sum(x: Array, axes?: Axes, opts?: KeepDims): Array {
  const ax = normAxes(axes, x.ndim);
  const src = x.dtype === "bool" ? astype(x, "i32") : x;
  return keep(x, ax.length ? bind("reduce_sum", [src], { axes: ax }) : src, ax, opts);
}

/** Maximum over `axes` (default all), dropping them unless `keepDims`. */
export function max(x: Array, axes?: Axes, opts?: KeepDims): Array {
  const ax = normAxes(axes, x.ndim);
  return keep(x, ax.length ? bind("reduce_max", [x], { axes: ax }) : x, ax, opts);
}

/** Minimum over `axes` (default all), dropping them unless `keepDims`. */
export function min(x: Array, axes?: Axes, opts?: KeepDims): Array {
  return neg(max(neg(x), axes, opts));
}

function count(x: Array, ax: number[]): number {
  return ax.reduce((n, a) => n * x.shape[a]!, 1);
}

/** Mean over `axes` (default all; integers averaged as f32), dropping them unless `keepDims`. */
export function mean(x: Array, axes?: Axes, opts?: KeepDims): Array {
  const ax = normAxes(axes, x.ndim);
  const f = isFloat(x.dtype) ? x : astype(x, "f32");
  return div(sum(f, ax, opts), count(x, ax));
}

/** Population variance (ddof 0), as numpy and layer norm use it. */
export function variance(x: Array, axes?: Axes, opts?: KeepDims): Array {
  const ax = normAxes(axes, x.ndim);
  const centered = sub(x, mean(x, ax, { keepDims: true }));
  return mean(mul(centered, centered), ax, opts);
}

/** Index of the first maximum along an axis (i32). */
export function argmax(x: Array, axis: number): Array {
  const a = normAxis(axis, x.ndim);
  const n = x.shape[a]!;
  const isMax = compare(x, max(x, a, { keepDims: true }), "eq");
  const idx = iota(x.shape, a, "i32");
  // The first index among the maxima is the minimum of (index where max, n elsewhere).
  return min(where(isMax, idx, n), a);
}

/** Running sum along `axis` (from the end with `reverse`). */
export function cumsum(x: Array, axis: number, opts?: { reverse?: boolean }): Array {
  return bind("cumsum", [x], { axis: normAxis(axis, x.ndim), reverse: opts?.reverse ?? false });
}
