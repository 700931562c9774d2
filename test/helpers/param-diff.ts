// Comparing parameter trees.
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import * as k from "../../src/index.js";

/** max |a - b| over all parameters, relative to max |b| (biases that start at 0 have no scale of their own). */
export function maxRelativeDifference(a: unknown, b: unknown): number {
  const xs = k.leaves<k.Array>(a as k.PyTree),
    ys = k.leaves<k.Array>(b as k.PyTree);
  assert.equal(xs.length, ys.length);
  let scale = 0,
    diff = 0;
  xs.forEach((x, i) => {
    const p = x.dataSync() as Float32Array,
      q = ys[i]!.dataSync() as Float32Array;
    for (let j = 0; j < p.length; j++) {
      scale = Math.max(scale, Math.abs(q[j]!));
      diff = Math.max(diff, Math.abs(p[j]! - q[j]!));
    }
  });
  return diff / scale;
}

/** The leaf paths whose values differ between two parameter trees of the same structure (asserted), in leaf order. */
export function differingLeafPaths(a: k.PyTree, b: k.PyTree): string[] {
  const paths = k.leafPaths(a);
  assert.deepEqual(k.leafPaths(b), paths);
  const xs = k.leaves<k.Array>(a),
    ys = k.leaves<k.Array>(b);
  return paths.filter((_, i) => !isDeepStrictEqual(xs[i]!.dataSync(), ys[i]!.dataSync()));
}
