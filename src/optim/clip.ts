// Gradient clipping by global norm: one scale for all gradients, so their direction is kept.
import * as k from "../core/index.js";

/** The L2 norm of all leaves of a tree taken together (in f32). */
export function globalNorm(tree: unknown): k.Array {
  const squares = k.leaves<k.Array>(tree as k.PyTree).map((g) => g.astype("f32").square().sum());
  return squares.reduce((a, b) => a.add(b)).sqrt();
}

/** Scales grads so their global norm is at most maxNorm; returns the clipped grads and the norm before. */
export function clipByGlobalNorm<T>(grads: T, maxNorm: number): { grads: T; norm: k.Array } {
  const norm = globalNorm(grads);
  const scale = k.minimum(k.div(maxNorm, norm.add(1e-6)), 1);
  return { grads: k.treeMap((g: k.Array) => g.mul(scale.astype(g.dtype)), grads), norm };
}
