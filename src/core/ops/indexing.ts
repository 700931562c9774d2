// Gathering and scattering along an axis, one-hot, and the data-dependent-shape APIs (rule 2).
import { Array } from "../array.js";
import { readElem } from "../dtype.js";
import { fmtShape, normAxis } from "../shape.js";
import { DataDependentShapeError } from "../diagnostics.js";
import { bind } from "./dispatch.js";
import { array, full, iota } from "./creation.js";
import { astype, compare, sub, where } from "./elementwise.js";
import { expandDims } from "./shape.js";
import { cumsum } from "./reduce.js";

function indexArray(indices: Array | number | readonly number[]): Array {
  if (indices instanceof Array) {
    if (indices.dtype !== "i32" && indices.dtype !== "u32")
      throw new Error(`indices must be i32 or u32, got ${indices.dtype} (use .astype("i32"))`);
    return indices;
  }
  return array(typeof indices === "number" ? indices : [...indices], {
    dtype: "i32",
    shape: typeof indices === "number" ? [] : [indices.length],
  });
}

/** x[..., indices, ...] along `axis` (out-of-range indices are clamped, as XLA does). */
export function take(x: Array, indices: Array | number | readonly number[], axis = 0): Array {
  return bind("take", [x, indexArray(indices)], { axis: normAxis(axis, x.ndim) });
}

/** Adds `updates` into x at `indices` along `axis` (repeated indices accumulate). */
export function scatterAdd(x: Array, indices: Array, updates: Array, axis = 0): Array {
  return bind("scatter_add", [x, indexArray(indices), updates], { axis: normAxis(axis, x.ndim) });
}

/** One-hot encoding along a new last axis; out-of-range indices (e.g. -100) give all zeros. */
export function oneHot(indices: Array, n: number, dtype: "f32" | "bf16" | "f16" | "f64" | "i32" = "f32"): Array {
  const classes = iota([...indices.shape, n], indices.ndim, indices.dtype);
  return astype(compare(classes, expandDims(indices, -1), "eq"), dtype);
}

/**
 * Indices of the non-zero elements of a 1-D array. With `size`, the result has that static length (the
 * first `size` indices, padded with `fillValue`), which works inside compiled functions; without it the
 * length depends on the data, which only an eager (concrete) array can have.
 */
export function nonzero(x: Array, opts?: { size: number; fillValue?: number }): Array {
  if (x.ndim !== 1) throw new Error(`nonzero takes a 1-D array, got ${fmtShape(x.shape)} (reshape it first)`);
  if (!opts) {
    if (x.isTraced) throw new DataDependentShapeError("nonzero(x) without a static size");
    const h = x.dataSync(),
      out: number[] = [];
    for (let i = 0; i < x.size; i++) if (readElem(x.dtype, h, i) !== 0) out.push(i);
    return array(out, { dtype: "i32", shape: [out.length] });
  }
  const { size, fillValue = 0 } = opts;
  const mask = astype(compare(x, 0, "ne"), "i32");
  // Rank of each non-zero element among the non-zeros; others go to the spare slot `size`.
  const rank = sub(cumsum(mask, 0), 1);
  const slot = where(compare(mask, 1, "eq"), where(compare(rank, size, "lt"), rank, size), size);
  const positions = iota([x.size], 0, "i32");
  // Store position + 1 so that empty slots (0) can be told apart, then drop the spare slot.
  const filled = scatterAdd(full([size + 1], 0, "i32"), slot, positions.add(1), 0).slice([0], [size]);
  return where(compare(filled, 0, "eq"), fillValue, sub(filled, 1));
}

/** x[mask]: impossible in a compiled function (rule 2); works on concrete arrays. */
export function booleanMask(x: Array, mask: Array): Array {
  if (x.isTraced || mask.isTraced) throw new DataDependentShapeError("booleanMask(x, mask)");
  if (mask.ndim !== 1 || mask.shape[0] !== x.shape[0])
    throw new Error(`booleanMask: mask ${fmtShape(mask.shape)} must be 1-D with the length of x's first dimension ${x.shape[0]}`);
  return take(x, nonzero(mask), 0);
}
