// Reference kernels: one entry per primitive, written for clarity and exactness rather than speed.
// Arithmetic runs in JS doubles and is rounded once to the result dtype, which is what "compute in f32
// (or in f32 for bf16/f16 operands) and store" means on every executor.
import type { DType } from "../../core/dtype.js";
import { allocHost, isFloat } from "../../core/dtype.js";
import type { AVal, Prim, PrimParams, Program } from "../../core/ir.js";
import { sizeOf, stridesOf } from "../../core/shape.js";
import { stridedCopy, transposeData } from "./layout.js";
import { erf } from "./math.js";
import { build, numbers, type HostTensor } from "./tensor.js";
import { scanKernel } from "./scan.js";

export interface KernelContext {
  /** For all_reduce: the operand's value on every replica, in replica order. */
  replicaValues?: readonly HostTensor[];
}

type Kernel<P extends Prim> = (ins: readonly HostTensor[], params: PrimParams[P], out: AVal, ctx: KernelContext) => HostTensor;
/** The kernel of a primitive with several results, given every replica's operands (a loop body may all_reduce). */
/** Runs a program on every replica in lockstep (the interpreter, handed to kernels that run sub-programs). */
export type Interpret = (program: Program, args: readonly (readonly HostTensor[])[]) => HostTensor[][];

/**
 * A kernel with several results and a body program (scan): it sees every replica's operands at once,
 * and is given the interpreter to run its body with (rather than importing it, which would be a cycle).
 */
export type ReplicatedKernel<P extends Prim> = (
  replicaIns: readonly (readonly HostTensor[])[],
  params: PrimParams[P],
  outs: readonly AVal[],
  interpret: Interpret,
) => HostTensor[][];

/** σ(x) from e^-|x|, which never overflows. */
function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

function unary(f: (x: number) => number): Kernel<any> {
  return ([x], _p, out) => {
    const a = numbers(x!);
    return build(out, (i) => f(a[i]!));
  };
}

function binary(f: (x: number, y: number, dtype: DType) => number): Kernel<any> {
  return ([x, y], _p, out) => {
    const a = numbers(x!),
      b = numbers(y!),
      d = x!.aval.dtype;
    return build(out, (i) => f(a[i]!, b[i]!, d));
  };
}

const isIntegral = (d: DType) => d === "i32" || d === "u32" || d === "i64" || d === "bool";

/** Integer multiply that wraps like the hardware (the double product of two 32-bit ints can be inexact). */
function mulWrap(x: number, y: number, d: DType): number {
  if (d === "i32") return Math.imul(x, y);
  if (d === "u32") return Math.imul(x, y) >>> 0;
  return x * y;
}

function divide(x: number, y: number, d: DType): number {
  if (!isIntegral(d)) return x / y;
  if (y === 0) return d === "u32" ? 0xffffffff : -1; // XLA's answer for integer division by zero
  return Math.trunc(x / y);
}

/** float → integer conversion: truncate toward zero, saturate at the type's range, NaN → 0. */
function toIntegral(x: number, d: DType): number {
  if (Number.isNaN(x)) return 0;
  const t = Math.trunc(x);
  if (d === "i32") return Math.min(2147483647, Math.max(-2147483648, t));
  if (d === "u32") return Math.min(4294967295, Math.max(0, t));
  return t;
}

const COMPARE: Record<PrimParams["compare"]["direction"], (x: number, y: number) => boolean> = {
  eq: (x, y) => x === y,
  ne: (x, y) => x !== y,
  lt: (x, y) => x < y,
  le: (x, y) => x <= y,
  gt: (x, y) => x > y,
  ge: (x, y) => x >= y,
};

/** Moves `axes` to the end and returns the data with the kept and reduced sizes (for reductions). */
function reduceLayout(x: HostTensor, axes: readonly number[]): { data: ArrayLike<number>; red: number } {
  const rank = x.aval.shape.length;
  const kept = [...Array(rank).keys()].filter((i) => !axes.includes(i));
  const perm = [...kept, ...axes];
  const moved: HostTensor = { aval: x.aval, data: transposeData(x.data, x.aval.shape, perm) };
  const red = axes.reduce((a, i) => a * x.aval.shape[i]!, 1);
  return { data: numbers(moved), red };
}

/** dot_general as batched [B,M,K]·[B,K,N] after moving dims into place; accumulates in doubles. */
function dotGeneral([lhs, rhs]: readonly HostTensor[], p: PrimParams["dot_general"], out: AVal): HostTensor {
  const a = lhs!,
    b = rhs!;
  const lhsFree = a.aval.shape.map((_, i) => i).filter((i) => !p.lhsContract.includes(i) && !p.lhsBatch.includes(i));
  const rhsFree = b.aval.shape.map((_, i) => i).filter((i) => !p.rhsContract.includes(i) && !p.rhsBatch.includes(i));
  const size = (t: HostTensor, dims: readonly number[]) => dims.reduce((acc, d) => acc * t.aval.shape[d]!, 1);
  const B = size(a, p.lhsBatch),
    M = size(a, lhsFree),
    K = size(a, p.lhsContract),
    N = size(b, rhsFree);
  const A = numbers({ aval: a.aval, data: transposeData(a.data, a.aval.shape, [...p.lhsBatch, ...lhsFree, ...p.lhsContract]) });
  const Bm = numbers({ aval: b.aval, data: transposeData(b.data, b.aval.shape, [...p.rhsBatch, ...p.rhsContract, ...rhsFree]) });
  const acc = new Float64Array(B * M * N);
  for (let bi = 0; bi < B; bi++) {
    for (let m = 0; m < M; m++) {
      const rowA = (bi * M + m) * K,
        rowO = (bi * M + m) * N;
      for (let k = 0; k < K; k++) {
        const av = A[rowA + k]!;
        if (av === 0) continue;
        const rowB = (bi * K + k) * N;
        for (let n = 0; n < N; n++) acc[rowO + n]! += av * Bm[rowB + n]!;
      }
    }
  }
  return build(out, (i) => acc[i]!);
}

/** Shared index walk of take/scatter_add: x viewed as [outer, n, inner], indices flattened to [m]. */
function axisView(x: AVal, axis: number) {
  const outer = x.shape.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  return { outer, n: x.shape[axis]!, inner };
}
const clampIndex = (i: number, n: number) => Math.min(Math.max(i, 0), n - 1);

/**
 * Per row of logits [rows, V]: the log-sum-exp (shifted by the row's max when it is finite) and the
 * clamped label; cross-entropy's forward and gradient kernels share it.
 */
function crossEntropyRows(
  x: HostTensor,
  labels: HostTensor,
  visit: (row: readonly number[], lse: number, label: number, r: number) => void,
) {
  const v = x.aval.shape[x.aval.shape.length - 1]!;
  const a = numbers(x),
    lab = numbers(labels);
  for (let r = 0; r < lab.length; r++) {
    const row = Array.from({ length: v }, (_, j) => a[r * v + j]!);
    const m = row.reduce((acc, y) => (y > acc || Number.isNaN(y) ? y : acc), -Infinity);
    const shift = Number.isFinite(m) ? m : 0;
    const lse = Math.log(row.reduce((acc, y) => acc + Math.exp(y - shift), 0)) + shift;
    visit(row, lse, clampIndex(lab[r]!, v), r);
  }
}

export const REF_KERNELS: { [P in Prim]: P extends "scan" ? ReplicatedKernel<P> : Kernel<P> } = {
  neg: unary((x) => -x),
  exp: unary(Math.exp),
  log: unary(Math.log),
  tanh: unary(Math.tanh),
  logistic: unary(sigmoid),
  erf: unary(erf),
  gelu: unary((x) => 0.5 * x * (1 + erf(x * Math.SQRT1_2))),
  silu: unary((x) => x * sigmoid(x)),
  rsqrt: unary((x) => 1 / Math.sqrt(x)),
  sqrt: unary(Math.sqrt),
  abs: unary(Math.abs),
  sin: unary(Math.sin),
  cos: unary(Math.cos),
  is_finite: unary((x) => (Number.isFinite(x) ? 1 : 0)),
  not: ([x], _p, out) => {
    const a = numbers(x!);
    return build(out, x!.aval.dtype === "bool" ? (i) => (a[i] ? 0 : 1) : (i) => ~a[i]!);
  },

  add: binary((x, y) => x + y),
  sub: binary((x, y) => x - y),
  mul: binary(mulWrap),
  div: binary(divide),
  pow: binary(Math.pow),
  max: binary((x, y) => Math.max(x, y)),
  min: binary((x, y) => Math.min(x, y)),
  and: binary((x, y, d) => (d === "bool" ? +(x && y) : x & y)),
  or: binary((x, y, d) => (d === "bool" ? +(x || y) : x | y)),
  xor: binary((x, y, d) => (d === "bool" ? +(!!x !== !!y) : x ^ y)),
  // Shifts by ≥ the bit width give 0, as on ONNX Runtime and XLA.
  shift_left: binary((x, y, d) => (y >= 32 || y < 0 ? 0 : d === "u32" ? (x << y) >>> 0 : x << y)),
  shift_right_logical: binary((x, y, d) => (y >= 32 || y < 0 ? 0 : d === "u32" ? x >>> y : (x >>> y) | 0)),
  compare: ([x, y], { direction }, out) => {
    const a = numbers(x!),
      b = numbers(y!),
      f = COMPARE[direction];
    return build(out, (i) => +f(a[i]!, b[i]!));
  },
  select: ([p, t, f], _p, out) => {
    const c = p!.data,
      a = numbers(t!),
      b = numbers(f!);
    return build(out, (i) => (c[i] ? a[i]! : b[i]!));
  },
  convert: ([x], { dtype }, out) => {
    const a = numbers(x!);
    if (dtype === "bool") return build(out, (i) => +(a[i] !== 0));
    if (isIntegral(dtype) && isFloat(x!.aval.dtype)) return build(out, (i) => toIntegral(a[i]!, dtype));
    return build(out, (i) => a[i]!);
  },
  stop_gradient: ([x]) => x!,

  broadcast_in_dim: ([x], { shape, dims }, out) => {
    const st = stridesOf(x!.aval.shape);
    const srcStrides = shape.map(() => 0);
    dims.forEach((d, i) => {
      if (x!.aval.shape[i] !== 1) srcStrides[d] = st[i]!;
    });
    return { aval: out, data: stridedCopy(x!.data, shape, srcStrides) };
  },
  reshape: ([x], _p, out) => ({ aval: out, data: x!.data }),
  transpose: ([x], { perm }, out) => ({ aval: out, data: transposeData(x!.data, x!.aval.shape, perm) }),
  slice: ([x], { start }, out) => {
    const st = stridesOf(x!.aval.shape);
    const offset = start.reduce((acc, s, i) => acc + s * st[i]!, 0);
    return { aval: out, data: stridedCopy(x!.data, out.shape, st, offset) };
  },
  concatenate: (ins, { axis }, out) => {
    const outer = out.shape.slice(0, axis).reduce((a, b) => a * b, 1);
    const inner = out.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    const data = allocHost(out.dtype, sizeOf(out.shape)) as Float64Array;
    let col = 0;
    const rowLen = out.shape[axis]! * inner;
    for (const t of ins) {
      const w = t.aval.shape[axis]! * inner,
        src = t.data as Float64Array;
      for (let o = 0; o < outer; o++) data.set(src.subarray(o * w, (o + 1) * w), o * rowLen + col);
      col += w;
    }
    return { aval: out, data };
  },
  pad: ([x], { low, value }, out) => {
    const filled = build(out, () => value);
    const src = x!.data as Float64Array,
      dst = filled.data as Float64Array;
    const inShape = x!.aval.shape,
      outSt = stridesOf(out.shape),
      inSt = stridesOf(inShape);
    for (let i = 0; i < src.length; i++) {
      let rem = i,
        o = 0,
        inside = true;
      for (let d = 0; d < inShape.length; d++) {
        const c = Math.floor(rem / inSt[d]!);
        rem -= c * inSt[d]!;
        const oc = c + low[d]!;
        if (oc < 0 || oc >= out.shape[d]!) {
          inside = false;
          break;
        }
        o += oc * outSt[d]!;
      }
      if (inside) dst[o] = src[i]!;
    }
    return filled;
  },

  dot_general: dotGeneral,
  reduce_sum: ([x], { axes }, out) => {
    const { data, red } = reduceLayout(x!, axes);
    return build(out, (i) => {
      let s = 0;
      for (let j = i * red, e = j + red; j < e; j++) s += data[j]!;
      return s;
    });
  },
  reduce_max: ([x], { axes }, out) => {
    const { data, red } = reduceLayout(x!, axes);
    return build(out, (i) => {
      let m = -Infinity;
      for (let j = i * red, e = j + red; j < e; j++) m = data[j]! > m || Number.isNaN(data[j]!) ? data[j]! : m;
      return m;
    });
  },

  iota: (_ins, { shape, dim }, out) => {
    const st = stridesOf(shape);
    return build(out, (i) => Math.floor(i / st[dim]!) % shape[dim]!);
  },
  take: ([x, idx], { axis }, out) => {
    const { outer, n, inner } = axisView(x!.aval, axis);
    const ind = numbers(idx!),
      m = ind.length;
    const src = x!.data as Float64Array,
      dst = allocHost(out.dtype, sizeOf(out.shape)) as Float64Array;
    for (let o = 0; o < outer; o++) {
      for (let j = 0; j < m; j++) {
        const from = (o * n + clampIndex(ind[j]!, n)) * inner;
        dst.set(src.subarray(from, from + inner), (o * m + j) * inner);
      }
    }
    return { aval: out, data: dst };
  },
  scatter_add: ([x, idx, upd], { axis }, out) => {
    const { outer, n, inner } = axisView(x!.aval, axis);
    const ind = numbers(idx!),
      m = ind.length,
      u = numbers(upd!);
    const acc = Float64Array.from(numbers(x!));
    for (let o = 0; o < outer; o++) {
      for (let j = 0; j < m; j++) {
        const to = (o * n + clampIndex(ind[j]!, n)) * inner,
          from = (o * m + j) * inner;
        for (let k = 0; k < inner; k++) acc[to + k]! += u[from + k]!;
      }
    }
    return build(out, (i) => acc[i]!);
  },
  cumsum: ([x], { axis, reverse }, out) => {
    const { outer, n, inner } = axisView(x!.aval, axis);
    const a = numbers(x!),
      acc = new Float64Array(a.length);
    for (let o = 0; o < outer; o++) {
      for (let k = 0; k < inner; k++) {
        let s = 0;
        for (let jj = 0; jj < n; jj++) {
          const j = reverse ? n - 1 - jj : jj,
            i = (o * n + j) * inner + k;
          s += a[i]!;
          acc[i] = s;
        }
      }
    }
    return build(out, (i) => acc[i]!);
  },
  softmax_cross_entropy: ([x, labels], _p, out) => {
    const nll = new Float64Array(sizeOf(out.shape));
    crossEntropyRows(x!, labels!, (row, lse, label, r) => {
      nll[r] = lse - row[label]!;
    });
    return build(out, (i) => nll[i]!);
  },
  softmax_cross_entropy_grad: ([x, labels, g], _p, out) => {
    const v = out.shape[out.shape.length - 1]!,
      gs = numbers(g!);
    const grad = new Float64Array(sizeOf(out.shape));
    crossEntropyRows(x!, labels!, (row, lse, label, r) => {
      for (let j = 0; j < v; j++) grad[r * v + j] = (Math.exp(row[j]! - lse) - (j === label ? 1 : 0)) * gs[r]!;
    });
    return build(out, (i) => grad[i]!);
  },
  softmax: ([x], { axis }, out) => {
    const { outer, n, inner } = axisView(x!.aval, axis);
    const a = numbers(x!),
      y = new Float64Array(a.length);
    for (let o = 0; o < outer; o++) {
      for (let k = 0; k < inner; k++) {
        const at = (j: number) => (o * n + j) * inner + k;
        // Math.max propagates NaN: a row holding one is all NaN, as is a row holding +inf (inf − inf).
        let m = -Infinity;
        for (let j = 0; j < n; j++) m = Math.max(m, a[at(j)]!);
        let s = 0;
        for (let j = 0; j < n; j++) s += y[at(j)] = Math.exp(a[at(j)]! - m);
        for (let j = 0; j < n; j++) y[at(j)]! /= s;
      }
    }
    return build(out, (i) => y[i]!);
  },
  all_reduce: ([x], _p, out, ctx) => {
    const all = ctx.replicaValues ?? [x!];
    const parts = all.map(numbers);
    return build(out, (i) => parts.reduce((s, p) => s + p[i]!, 0));
  },
  scan: scanKernel,
};
