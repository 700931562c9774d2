// IR rewrites applied before lowering, each saving real work on the CPU: exact (the same values), or
// the same up to rounding where a scaling moves past a sum.
import type { DType } from "../../core/dtype.js";
import { allEquations, eqnOuts, type Eqn, type PrimParams, type Program, type Var } from "../../core/ir.js";

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

/**
 * softmax_cross_entropy_grad(x, labels, g) scales each row of its [rows, classes] result by g. Where only
 * products read that result, each scales its own side instead: (g ⊙ D)·W = g ⊙ (D·W) for a product that
 * keeps the rows, and (g ⊙ D)ᵀ·H = Dᵀ·(g ⊙ H) for one that sums over them, and the gradient is computed
 * with g = 1, which the lowering writes without a multiply. A language model's vocabulary head is the
 * case: on a causal LM's [4064, 8192] logits the multiply was 12 ms of an 820 ms step, and the two that
 * replace it scale [4064, 256] arrays. The values are the same up to rounding (the scaling moves past a sum).
 */
export function scaleRowsAfterProducts(program: Program): Program {
  const readers = new Map<number, Eqn[]>();
  for (const e of program.eqns)
    for (const v of e.inputs) {
      const list = readers.get(v.id);
      if (list) list.push(e);
      else readers.set(v.id, [e]);
    }
  const outputs = new Set(program.outputs.map((v) => v.id));
  const movable = new Set<Eqn>();
  for (const e of program.eqns) {
    if (e.prim !== "softmax_cross_entropy_grad" || e.out.aval.shape.length !== 2 || outputs.has(e.out.id)) continue;
    const scale = e.inputs[2]!.aval.dtype;
    const products = readers.get(e.out.id) ?? [];
    if (products.length > 0 && products.every((d) => rowScaleSide(d, e.out.id, scale) !== undefined)) movable.add(e);
  }
  if (!movable.size) return program;

  let next =
    1 +
    Math.max(
      ...[...program.inputs, ...program.consts.map((c) => c.v)].map((v) => v.id),
      ...[...allEquations(program)].flatMap((e) => eqnOuts(e).map((v) => v.id)),
    );
  const fresh = (shape: readonly number[], dtype: DType): Var => ({ id: next++, aval: { shape: [...shape], dtype } });
  const consts = [...program.consts];
  const eqns: Eqn[] = [];
  const emit = <P extends keyof PrimParams>(prim: P, inputs: Var[], out: Var, params: PrimParams[P]) =>
    eqns.push({ prim, inputs, out, params } as Eqn);
  /** The unscaled gradient of each moved equation, and its row scale, by the var of the scaled one. */
  const moved = new Map<number, { unscaled: Var; scale: Var }>();
  for (const e of program.eqns) {
    if (movable.has(e)) {
      const [x, labels, scale] = e.inputs as [Var, Var, Var];
      const one = fresh([], scale.aval.dtype);
      consts.push({ v: one, value: scale.aval.dtype === "f64" ? new Float64Array([1]) : new Float32Array([1]) });
      const ones = fresh(scale.aval.shape, scale.aval.dtype);
      emit("broadcast_in_dim", [one], ones, { shape: scale.aval.shape, dims: [] });
      const unscaled = fresh(e.out.aval.shape, e.out.aval.dtype);
      emit("softmax_cross_entropy_grad", [x, labels, ones], unscaled, {});
      moved.set(e.out.id, { unscaled, scale });
      continue;
    }
    const source = e.prim === "dot_general" ? e.inputs.find((v) => moved.has(v.id)) : undefined;
    if (!source) {
      eqns.push(e);
      continue;
    }
    const { unscaled, scale } = moved.get(source.id)!;
    const side = rowScaleSide(e as Eqn<"dot_general">, source.id, scale.aval.dtype)!;
    const inputs = e.inputs.map((v) => (v.id === source.id ? unscaled : v));
    if (side.kind === "result") {
      const product = fresh(e.out.aval.shape, e.out.aval.dtype);
      emit("dot_general", inputs, product, e.params as PrimParams["dot_general"]);
      const rows = fresh(e.out.aval.shape, scale.aval.dtype);
      emit("broadcast_in_dim", [scale], rows, { shape: e.out.aval.shape, dims: [side.axis] });
      emit("mul", [product, rows], e.out, {});
    } else {
      const other = inputs[side.operand]!;
      const rows = fresh(other.aval.shape, scale.aval.dtype);
      emit("broadcast_in_dim", [scale], rows, { shape: other.aval.shape, dims: [side.axis] });
      const scaled = fresh(other.aval.shape, other.aval.dtype);
      emit("mul", [other, rows], scaled, {});
      emit(
        "dot_general",
        inputs.map((v, i) => (i === side.operand ? scaled : v)),
        e.out,
        e.params as PrimParams["dot_general"],
      );
    }
  }
  return { ...program, consts, eqns };
}

/**
 * Where a product reading the row-scaled [rows, classes] array `id` can take the row scale instead: on its
 * result's axis of those rows when it sums over the classes, or on its other operand's axis that it sums
 * against the rows. Undefined for any other product (batched, several contracted axes, the array on both
 * sides, or dtypes other than the scale's, which would need conversions).
 */
function rowScaleSide(
  e: Eqn,
  id: number,
  dtype: DType,
): { kind: "result"; axis: number } | { kind: "operand"; operand: number; axis: number } | undefined {
  if (e.prim !== "dot_general") return undefined;
  const p = e.params as PrimParams["dot_general"];
  const [lhs, rhs] = e.inputs as [Var, Var];
  if (p.lhsBatch.length || p.rhsBatch.length || p.lhsContract.length !== 1 || (lhs.id === id) === (rhs.id === id)) return undefined;
  if ([lhs, rhs, e.out].some((v) => v.aval.dtype !== dtype)) return undefined;
  const mine = lhs.id === id ? 0 : 1;
  const other = 1 - mine;
  const contract = [p.lhsContract[0]!, p.rhsContract[0]!];
  if (contract[mine] === 1) {
    // The rows stay a free axis: first of the result's when the array is on the left, after the left operand's free axes otherwise.
    return { kind: "result", axis: mine === 0 ? 0 : lhs.aval.shape.length - 1 };
  }
  return { kind: "operand", operand: other, axis: contract[other]! };
}
