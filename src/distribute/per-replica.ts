// A value that differs per replica (Keras' PerReplica): one Array for each replica, in replica order.
import * as k from "../core/index.js";

/** A value that differs per replica: one for each replica, in replica order. */
export class PerReplica<T = k.Array> {
  constructor(readonly values: readonly T[]) {
    if (values.length === 0) throw new Error("PerReplica needs at least one value");
  }
  get replicas(): number {
    return this.values.length;
  }
}

/** Replica r's view of a tree whose leaves may be PerReplica (others are the same on every replica). */
export function replicaView<T>(tree: T, r: number): any {
  const { leaves, treedef } = k.flatten(tree, (x) => x instanceof PerReplica || x instanceof k.Array);
  return treedef.unflatten(leaves.map((l) => (l instanceof PerReplica ? l.values[r] : l)));
}
