// cond: the branch remedy for data-dependent control flow (XLA rule 1).
import { Array, type ArrayOrScalar } from "../array.js";
import { fmtAVal } from "../ir.js";
import { flatten } from "../pytree.js";
import { compare, where } from "./elementwise.js";

/**
 * cond(pred, onTrue, onFalse, ...operands): onTrue(...operands) if pred else onFalse(...operands).
 * With a concrete predicate only the chosen branch runs. With a traced one both branches are traced
 * and each result is selected elementwise (both must return the same structure, shapes and dtypes),
 * which is what a compiled program does with a branch on data: compute both, keep one.
 */
export function cond<T>(pred: ArrayOrScalar, onTrue: (...ops: any[]) => T, onFalse: (...ops: any[]) => T, ...operands: unknown[]): T {
  if (!(pred instanceof Array)) return pred ? onTrue(...operands) : onFalse(...operands);
  if (pred.size !== 1) throw new Error(`cond needs a scalar predicate, got ${fmtAVal(pred.aval)} (use where() for elementwise choice)`);
  if (!pred.isTraced) return pred.item() ? onTrue(...operands) : onFalse(...operands);
  const p = pred.dtype === "bool" ? pred : compare(pred, 0, "ne");
  const t = flatten(onTrue(...operands)),
    f = flatten(onFalse(...operands));
  if (t.treedef.key !== f.treedef.key) throw new Error("cond: the two branches return different structures");
  const picked = t.leaves.map((a, i) => {
    const b = f.leaves[i];
    if (!(a instanceof Array) || !(b instanceof Array)) return a;
    if (a.dtype !== b.dtype || a.shape.join() !== b.shape.join())
      throw new Error(`cond: branch results differ: ${fmtAVal(a.aval)} vs ${fmtAVal(b.aval)}`);
    return where(p.reshape([]), a, b);
  });
  return t.treedef.unflatten(picked) as T;
}
