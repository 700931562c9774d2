// Collectives for per-replica functions (strategy.run, replicated): what jax.lax.psum/pmean are.
import * as k from "../core/index.js";

/** The sum of `x` over all replicas, inside a per-replica function (identity on one replica). */
export function allReduceSum(x: k.Array): k.Array {
  return k.bind("all_reduce", [x], {});
}

/** The mean of `x` over all replicas, inside a per-replica function. */
export function allReduceMean(x: k.Array, numReplicas: number): k.Array {
  return allReduceSum(x).div(numReplicas);
}
