// Contractions: matmul with numpy semantics, and a small einsum over dot_general.
import type { Array } from "../array.js";
import { fmtShape } from "../shape.js";
import { bind } from "./dispatch.js";
import { sum } from "./reduce.js";
import { broadcastTo, expandDims, squeeze, transpose } from "./shape.js";
import { broadcastShapes } from "../shape.js";

/** numpy matmul: [..., m, k] @ [..., k, n] with broadcast leading (batch) dims; 1-D operands as vectors. */
export function matmul(a: Array, b: Array): Array {
  if (a.ndim === 0 || b.ndim === 0) throw new Error("matmul needs arrays of rank ≥ 1 (use mul for scalars)");
  const av = a.ndim === 1 ? expandDims(a, 0) : a;
  const bv = b.ndim === 1 ? expandDims(b, 1) : b;
  const k = av.shape[av.ndim - 1]!,
    k2 = bv.shape[bv.ndim - 2]!;
  if (k !== k2) throw new Error(`matmul: inner dimensions differ: ${fmtShape(a.shape)} @ ${fmtShape(b.shape)}`);
  let out: Array;
  if (bv.ndim === 2) {
    // [..., m, k] @ [k, n]: no batch dims needed; the leading dims ride along as free dims.
    out = bind("dot_general", [av, bv], { lhsContract: [av.ndim - 1], rhsContract: [0], lhsBatch: [], rhsBatch: [] });
  } else {
    const batch = broadcastShapes(av.shape.slice(0, -2), bv.shape.slice(0, -2));
    const ab = broadcastTo(av, [...batch, ...av.shape.slice(-2)]);
    const bb = broadcastTo(bv, [...batch, ...bv.shape.slice(-2)]);
    const nb = batch.length,
      bd = batch.map((_, i) => i);
    out = bind("dot_general", [ab, bb], { lhsContract: [nb + 1], rhsContract: [nb], lhsBatch: bd, rhsBatch: bd });
  }
  if (a.ndim === 1) out = squeeze(out, out.ndim - 2);
  if (b.ndim === 1) out = squeeze(out, out.ndim - 1);
  return out;
}

/**
 * Two-operand einsum, e.g. "bqhd,bkhd->bhqk". Letters in both operands and the output are batch dims,
 * in both operands but not the output are contracted, in one operand and the output are free; letters
 * in one operand only and not in the output are summed first.
 */
export function einsum(spec: string, a: Array, b: Array): Array {
  const m = /^\s*([a-zA-Z]*)\s*,\s*([a-zA-Z]*)\s*->\s*([a-zA-Z]*)\s*$/.exec(spec);
  if (!m) throw new Error(`einsum: spec "${spec}" must look like "ij,jk->ik" (two operands, explicit output)`);
  let [, sa, sb, so] = m as unknown as [string, string, string, string];
  if (sa.length !== a.ndim || sb.length !== b.ndim)
    throw new Error(`einsum: "${spec}" does not match operand ranks ${a.ndim} and ${b.ndim}`);
  for (const s of [sa, sb, so])
    if (new Set(s).size !== s.length) throw new Error(`einsum: repeated letter in "${s}" (traces/diagonals are not supported)`);
  // Sum away letters that appear in one operand only and not in the output.
  const dropA = [...sa].filter((c) => !sb.includes(c) && !so.includes(c));
  if (dropA.length) {
    a = sum(
      a,
      dropA.map((c) => sa.indexOf(c)),
    );
    sa = [...sa].filter((c) => !dropA.includes(c)).join("");
  }
  const dropB = [...sb].filter((c) => !sa.includes(c) && !so.includes(c));
  if (dropB.length) {
    b = sum(
      b,
      dropB.map((c) => sb.indexOf(c)),
    );
    sb = [...sb].filter((c) => !dropB.includes(c)).join("");
  }
  const batch = [...sa].filter((c) => sb.includes(c) && so.includes(c));
  const contract = [...sa].filter((c) => sb.includes(c) && !so.includes(c));
  for (const c of so) if (!sa.includes(c) && !sb.includes(c)) throw new Error(`einsum: output letter "${c}" is in neither operand`);
  const out = bind("dot_general", [a, b], {
    lhsContract: contract.map((c) => sa.indexOf(c)),
    rhsContract: contract.map((c) => sb.indexOf(c)),
    lhsBatch: batch.map((c) => sa.indexOf(c)),
    rhsBatch: batch.map((c) => sb.indexOf(c)),
  });
  const produced = [...batch, ...[...sa].filter((c) => !sb.includes(c)), ...[...sb].filter((c) => !sa.includes(c))];
  return transpose(
    out,
    [...so].map((c) => produced.indexOf(c)),
  );
}
