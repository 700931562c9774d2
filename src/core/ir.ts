// The IR: a program is a list of equations over SSA variables with static shapes and dtypes.
// Every executor (reference interpreter, ONNX Runtime, XLA) consumes exactly this.
import type { DType, HostArray } from "./dtype.js";
import type { Shape } from "./shape.js";
import { fmtShape } from "./shape.js";

/** Abstract value: what tracing knows about an array. */
export interface AVal {
  readonly shape: Shape;
  readonly dtype: DType;
}

export interface Var {
  readonly id: number;
  readonly aval: AVal;
}

export type CompareDirection = "eq" | "ne" | "lt" | "le" | "gt" | "ge";

/**
 * Parameters of every primitive. The keys of this map are the primitive set; each table (shape rules,
 * VJP rules, reference kernels, each executor's lowering) is a Record over these keys, so the compiler
 * refuses a table that forgets a primitive.
 */
export interface PrimParams {
  // elementwise unary
  neg: {};
  exp: {};
  log: {};
  tanh: {};
  erf: {};
  rsqrt: {};
  sqrt: {};
  abs: {};
  sin: {};
  cos: {};
  is_finite: {};
  not: {};
  // elementwise binary (equal shapes and dtypes; broadcasting is done above the IR)
  add: {};
  sub: {};
  mul: {};
  div: {};
  pow: {};
  max: {};
  min: {};
  and: {};
  or: {};
  xor: {};
  shift_left: {};
  shift_right_logical: {};
  compare: { direction: CompareDirection };
  select: {}; // (pred: bool, onTrue, onFalse)
  convert: { dtype: DType };
  stop_gradient: {};
  // shapes and layout
  broadcast_in_dim: { shape: Shape; dims: readonly number[] }; // operand dim i → output dim dims[i]
  reshape: { shape: Shape };
  transpose: { perm: readonly number[] };
  slice: { start: readonly number[]; limit: readonly number[] };
  concatenate: { axis: number };
  pad: { low: readonly number[]; high: readonly number[]; value: number };
  // contraction and reduction
  dot_general: {
    lhsContract: readonly number[];
    rhsContract: readonly number[];
    lhsBatch: readonly number[];
    rhsBatch: readonly number[];
    /** Result dtype; defaults to the operands' (bf16 operands with f32 here accumulate and return f32). */
    outDtype?: DType;
  };
  reduce_sum: { axes: readonly number[] };
  reduce_max: { axes: readonly number[] };
  // creation and indexing
  iota: { shape: Shape; dim: number; dtype: DType };
  /** take(x, idx): x[..., idx[...], ...] along `axis`; indices are clamped into range (XLA semantics). */
  take: { axis: number };
  /** scatter_add(x, idx, upd): x with upd added at idx along `axis` (the transpose of take). */
  scatter_add: { axis: number };
  cumsum: { axis: number; reverse: boolean };
  // collectives
  all_reduce: {}; // sum over replicas; identity on one replica
}

export type Prim = keyof PrimParams;

export interface Eqn<P extends Prim = Prim> {
  readonly prim: P;
  readonly inputs: readonly Var[];
  readonly out: Var;
  readonly params: PrimParams[P];
}

export interface Const {
  readonly v: Var;
  readonly value: HostArray;
}

/**
 * A whole program. Inputs are bound at run time; consts are captured host values (literals, captured
 * arrays); outputs may name any var, including inputs and consts.
 */
export interface Program {
  readonly name: string;
  readonly inputs: readonly Var[];
  readonly consts: readonly Const[];
  readonly eqns: readonly Eqn[];
  readonly outputs: readonly Var[];
}

export function fmtAVal(a: AVal): string {
  return `${a.dtype}${fmtShape(a.shape)}`;
}

function fmtParam(v: unknown): string {
  if (Array.isArray(v)) return `[${v.join(",")}]`;
  return String(v);
}

/** A readable listing of a program, one equation a line (used in errors and golden tests). */
export function printProgram(p: Program): string {
  const name = (v: Var) => `%${v.id}`;
  const lines = [`program ${p.name}(${p.inputs.map((v) => `${name(v)}: ${fmtAVal(v.aval)}`).join(", ")})`];
  for (const c of p.consts) lines.push(`  ${name(c.v)} = const ${fmtAVal(c.v.aval)}`);
  for (const e of p.eqns) {
    const ps = Object.entries(e.params as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${fmtParam(v)}`)
      .join(" ");
    lines.push(`  ${name(e.out)}: ${fmtAVal(e.out.aval)} = ${e.prim}${ps ? `{${ps}}` : ""} ${e.inputs.map(name).join(" ")}`);
  }
  lines.push(`  return ${p.outputs.map(name).join(", ")}`);
  return lines.join("\n");
}
