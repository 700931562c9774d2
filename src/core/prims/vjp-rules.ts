// Reverse-mode rules: one entry per primitive. Given the cotangent of the output, each returns the
// cotangents of the inputs (null where an input is not differentiable). Rules are written with the
// same ops users call, so they trace into programs and run eagerly alike, and can be differentiated again.
import type { Array } from "../array.js";
import { isFloat } from "../dtype.js";
import type { Prim, PrimParams } from "../ir.js";
import { bind } from "../ops/dispatch.js";
import { full, zerosLike } from "../ops/creation.js";
import { add, astype, compare, cos, div, erf, exp, log, logistic, mul, neg, sin, stopGradient, sub, where } from "../ops/elementwise.js";
import { max, sum } from "../ops/reduce.js";
import { expandDims, reshape, sliceAxis, transpose } from "../ops/shape.js";

type Cts = (Array | null)[];
type VjpRule<P extends Prim> = (ct: Array, ins: readonly Array[], out: Array, params: PrimParams[P]) => Cts;
/** The rule of a primitive with several results: a cotangent per result (null where none flowed). */
type MultiVjpRule<P extends Prim> = (
  cts: readonly (Array | null)[],
  ins: readonly Array[],
  outs: readonly Array[],
  params: PrimParams[P],
) => Cts;

const none: VjpRule<any> = (_ct, ins) => ins.map(() => null);

// scan's rule differentiates its body with this very table, so core/scan.ts attaches it once both
// exist (an entry that calls back, instead of an import cycle between the two modules).
let scanRule: MultiVjpRule<"scan"> | undefined;
export function attachScanVjp(rule: MultiVjpRule<"scan">): void {
  scanRule = rule;
}
const TWO_OVER_SQRT_PI = 1.1283791670955126;

function inversePerm(perm: readonly number[]): number[] {
  const inv = new globalThis.Array<number>(perm.length);
  perm.forEach((p, i) => {
    inv[p] = i;
  });
  return inv;
}

/** Gradient of a max/min: to the operand that won, split evenly on ties (as JAX does). */
function minmaxRule(ct: Array, a: Array, b: Array, out: Array): Cts {
  const ta = astype(compare(a, out, "eq"), ct.dtype),
    tb = astype(compare(b, out, "eq"), ct.dtype);
  const share = div(ct, add(ta, tb));
  return [mul(share, ta), mul(share, tb)];
}

/**
 * The VJP of softmax_cross_entropy_grad, out = (p − onehot)·g with p = softmax(x): for x,
 * g·p·(ct − Σ ct·p) (softmax's Jacobian; the one-hot is constant); for g, Σ ct·(p − onehot), which is
 * the primitive itself with g = 1. Labels get none.
 */
function crossEntropyGradRule(ct: Array, [x, labels, g]: readonly Array[]): Cts {
  const e = exp(sub(x!, stopGradient(max(x!, -1, { keepDims: true }))));
  const p = div(e, sum(e, -1, { keepDims: true }));
  const ctX = mul(mul(p, expandDims(g!, -1)), sub(ct, sum(mul(ct, p), -1, { keepDims: true })));
  const pMinusOnehot = bind("softmax_cross_entropy_grad", [x!, labels!, full(g!.shape, 1, g!.dtype)], {});
  return [ctX, null, sum(mul(ct, pMinusOnehot), -1)];
}

/** dot_general's cotangent for one operand, contracting ct with the other operand (see derivation). */
function dotTranspose(
  ct: Array,
  other: Array,
  self: Array,
  selfContract: readonly number[],
  otherContract: readonly number[],
  selfBatch: readonly number[],
  otherBatch: readonly number[],
  ctOtherFreeStart: number,
  ctOtherFreeCount: number,
  outDtype: PrimParams["dot_general"]["outDtype"],
): Array {
  // ct dims: [batch, lhsFree, rhsFree]. Contract ct's "other free" dims with other's free dims.
  const otherFree = other.shape.map((_, i) => i).filter((i) => !otherContract.includes(i) && !otherBatch.includes(i));
  const ctIn = ct.dtype === other.dtype ? ct : astype(ct, other.dtype);
  const r = bind("dot_general", [ctIn, other], {
    lhsContract: globalThis.Array.from({ length: ctOtherFreeCount }, (_, i) => ctOtherFreeStart + i),
    rhsContract: otherFree,
    lhsBatch: selfBatch.map((_, i) => i),
    rhsBatch: otherBatch,
    ...(outDtype ? { outDtype } : {}),
  });
  // r dims: [batch, ct's self-free dims, other's remaining dims = other's contract dims ascending].
  const selfFree = self.shape.map((_, i) => i).filter((i) => !selfContract.includes(i) && !selfBatch.includes(i));
  const sortedOtherContract = [...otherContract].sort((x, y) => x - y);
  const layout = [...selfBatch, ...selfFree, ...sortedOtherContract.map((c) => selfContract[otherContract.indexOf(c)]!)];
  const t = transpose(
    r,
    self.shape.map((_, d) => layout.indexOf(d)),
  );
  return t.dtype === self.dtype ? t : astype(t, self.dtype);
}

/** Each primitive's reverse-mode rule: the cotangents of its inputs from its output's cotangent. */
export const VJP_RULES: { [P in Prim]: P extends "scan" ? MultiVjpRule<P> : VjpRule<P> } = {
  neg: (ct) => [neg(ct)],
  exp: (ct, _i, out) => [mul(ct, out)],
  log: (ct, [x]) => [div(ct, x!)],
  tanh: (ct, _i, out) => [mul(ct, sub(1, mul(out, out)))],
  logistic: (ct, _i, out) => [mul(ct, mul(out, sub(1, out)))],
  erf: (ct, [x]) => [mul(ct, mul(exp(neg(mul(x!, x!))), TWO_OVER_SQRT_PI))],
  // d/dx x·Φ(x) = Φ(x) + x·φ(x), with Φ(x) = (1 + erf(x/√2))/2 and φ(x) = exp(−x²/2)/√(2π). Written in
  // w = −x/√2: Φ = (1 − erf(w))/2 and x·φ = −(w / e^(w²))/√π, so the cotangent is
  // ct·(1 − erf(w) − (2/√π)·w / e^(w²))/2: ten passes over x's shape where the rule as written took eleven.
  // Past |x| ≈ 13.3, e^(w²) overflows to ∞ and w / ∞ = 0 is the limit.
  gelu: (ct, [x]) => {
    const w = mul(x!, -Math.SQRT1_2);
    const tail = mul(div(w, exp(mul(w, w))), TWO_OVER_SQRT_PI);
    return [mul(mul(ct, sub(1, add(erf(w), tail))), 0.5)];
  },
  // d/dx x·σ(x) = σ + x·σ·(1 − σ) = σ + y·(1 − σ), with y the result.
  silu: (ct, [x], out) => {
    const s = logistic(x!);
    return [mul(ct, add(s, mul(out, sub(1, s))))];
  },
  rsqrt: (ct, [x], out) => [mul(ct, mul(div(out, x!), -0.5))],
  sqrt: (ct, _i, out) => [div(mul(ct, 0.5), out)],
  abs: (ct, [x]) => [where(compare(x!, 0, "gt"), ct, where(compare(x!, 0, "lt"), neg(ct), 0))],
  sin: (ct, [x]) => [mul(ct, cos(x!))],
  cos: (ct, [x]) => [neg(mul(ct, sin(x!)))],
  is_finite: none,
  not: none,

  add: (ct) => [ct, ct],
  sub: (ct) => [ct, neg(ct)],
  // A square (x·x, as norms compute a variance) gets its whole cotangent 2·ct·x on one operand: one
  // product over x's shape where ct·x + ct·x took two and a sum (ct is often a row value broadcast
  // later, where the doubling is nearly free). Doubling is exact, so the values are the same.
  mul: (ct, [a, b]) => (a === b ? [mul(add(ct, ct), a!), null] : [mul(ct, b!), mul(ct, a!)]),
  div: (ct, [, b], out) => [div(ct, b!), neg(div(mul(ct, out), b!))],
  pow: (ct, [a, b], out) => [
    mul(ct, mul(b!, bind("pow", [a!, sub(b!, 1)], {}))),
    // d/db a^b = a^b·log a, taken as 0 where a ≤ 0 (where the log is undefined)
    mul(ct, where(compare(a!, 0, "gt"), mul(out, log(where(compare(a!, 0, "gt"), a!, 1))), 0)),
  ],
  max: (ct, [a, b], out) => minmaxRule(ct, a!, b!, out),
  min: (ct, [a, b], out) => minmaxRule(ct, a!, b!, out),
  and: none,
  or: none,
  xor: none,
  shift_left: none,
  shift_right_logical: none,
  compare: none,
  select: (ct, [p]) => [null, where(p!, ct, 0), where(p!, 0, ct)],
  convert: (ct, [x]) => [isFloat(x!.dtype) && isFloat(ct.dtype) ? astype(ct, x!.dtype) : null],
  stop_gradient: none,

  broadcast_in_dim: (ct, [x], _out, { shape, dims }) => {
    const summed = shape
      .map((_, d) => d)
      .filter((d) => {
        const i = dims.indexOf(d);
        return i < 0 || (x!.shape[i] === 1 && shape[d] !== 1);
      });
    return [reshape(summed.length ? sum(ct, summed) : ct, x!.shape)];
  },
  reshape: (ct, [x]) => [reshape(ct, x!.shape)],
  transpose: (ct, _i, _o, { perm }) => [transpose(ct, inversePerm(perm))],
  slice: (ct, [x], _o, { start, limit }) => [bind("pad", [ct], { low: start, high: x!.shape.map((d, i) => d - limit[i]!), value: 0 })],
  concatenate: (ct, ins, _o, { axis }) => {
    let at = 0;
    return ins.map((x) => sliceAxis(ct, axis, at, (at += x.shape[axis]!)));
  },
  // Padding's transpose crops the padding away: pad by the negated widths.
  pad: (ct, _i, _o, { low, high }) => [bind("pad", [ct], { low: low.map((v) => -v), high: high.map((v) => -v), value: 0 })],

  dot_general: (ct, [a, b], _out, p) => {
    const nb = p.lhsBatch.length;
    const nfl = a!.ndim - nb - p.lhsContract.length,
      nfr = b!.ndim - nb - p.rhsContract.length;
    return [
      dotTranspose(ct, b!, a!, p.lhsContract, p.rhsContract, p.lhsBatch, p.rhsBatch, nb + nfl, nfr, p.outDtype),
      dotTranspose(ct, a!, b!, p.rhsContract, p.lhsContract, p.rhsBatch, p.lhsBatch, nb, nfl, p.outDtype),
    ];
  },
  reduce_sum: (ct, [x], _o, { axes }) => [
    bind("broadcast_in_dim", [ct], { shape: x!.shape, dims: x!.shape.map((_, i) => i).filter((i) => !axes.includes(i)) }),
  ],
  reduce_max: (ct, [x], out, { axes }) => {
    const kept = x!.shape.map((_, i) => i).filter((i) => !axes.includes(i));
    const back = (y: Array) => bind("broadcast_in_dim", [y], { shape: x!.shape, dims: kept });
    const hit = astype(compare(x!, back(out), "eq"), ct.dtype);
    return [mul(hit, back(div(ct, sum(hit, axes))))];
  },

  iota: () => [],
  take: (ct, [x, idx], _o, { axis }) => [bind("scatter_add", [zerosLike(x!), idx!, ct], { axis }), null],
  scatter_add: (ct, [, idx], _o, { axis }) => [ct, null, bind("take", [ct, idx!], { axis })],
  cumsum: (ct, _i, _o, { axis, reverse }) => [bind("cumsum", [ct], { axis, reverse: !reverse })],
  softmax_cross_entropy: (ct, [x, labels]) => [bind("softmax_cross_entropy_grad", [x!, labels!, ct], {}), null],
  softmax_cross_entropy_grad: crossEntropyGradRule,
  softmax: (ct, _i, out, { axis }) => {
    const gy = mul(ct, out);
    return [sub(gy, mul(out, sum(gy, axis, { keepDims: true })))];
  },
  all_reduce: (ct) => [bind("all_reduce", [ct], {})],
  scan: (cts, ins, outs, p) => {
    if (!scanRule) throw new Error("scan's VJP is attached by core/scan.ts, which was not loaded");
    return scanRule(cts, ins, outs, p);
  },
};

/** A zero cotangent for an input that received none. */
export function zeroCotangent(x: Array): Array {
  return full(x.shape, 0, x.dtype);
}
