// IR rewrites applied before lowering, each exact (same values) and each saving real work on the CPU.
import type { Eqn, PrimParams, Program } from "../../core/ir.js";

/**
 * transpose(dot_general(a, b)) that swaps the two free-dimension blocks is dot_general(b, a):
 * (A·B)ᵀ = Bᵀ·Aᵀ, each element the same sum of products. Reverse-mode autodiff produces this pattern
 * for every weight gradient (the cotangent of the right operand is computed transposed, then
 * transposed back); folded, ONNX Runtime writes the gradient in place instead of copying it.
 */
export function foldTransposedProducts(program: Program): Program {
  const uses = new Map<number, number>();
  for (const e of program.eqns) for (const v of e.inputs) uses.set(v.id, (uses.get(v.id) ?? 0) + 1);
  for (const v of program.outputs) uses.set(v.id, (uses.get(v.id) ?? 0) + 1);
  const producer = new Map(program.eqns.map((e) => [e.out.id, e]));
  const folded = new Set<Eqn>();
  const eqns = program.eqns.map((e) => {
    if (e.prim !== "transpose") return e;
    const d = producer.get(e.inputs[0]!.id);
    if (!d || d.prim !== "dot_general" || uses.get(d.out.id) !== 1) return e;
    const p = d.params as PrimParams["dot_general"];
    const [a, b] = d.inputs as [Eqn["out"], Eqn["out"]];
    const nb = p.lhsBatch.length;
    const nl = a.aval.shape.length - nb - p.lhsContract.length,
      nr = b.aval.shape.length - nb - p.rhsContract.length;
    const swapped = [
      ...Array(nb).keys(),
      ...Array.from({ length: nr }, (_, i) => nb + nl + i),
      ...Array.from({ length: nl }, (_, i) => nb + i),
    ];
    const perm = (e.params as PrimParams["transpose"]).perm;
    if (!perm.every((x, i) => x === swapped[i])) return e;
    folded.add(d);
    const params: PrimParams["dot_general"] = {
      lhsContract: p.rhsContract,
      rhsContract: p.lhsContract,
      lhsBatch: p.rhsBatch,
      rhsBatch: p.lhsBatch,
      ...(p.outDtype ? { outDtype: p.outDtype } : {}),
    };
    return { prim: "dot_general", inputs: [b, a], out: e.out, params } as Eqn;
  });
  return folded.size ? { ...program, eqns: eqns.filter((e) => !folded.has(e)) } : program;
}
