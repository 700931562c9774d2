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

/** A value in a traced program: its id and its abstract value (shape and dtype). */
export interface Var {
  readonly id: number;
  readonly aval: AVal;
}

/** How compare compares: equal, not equal, less, less or equal, greater, greater or equal. */
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
  /** σ(x) = 1 / (1 + e^-x) (StableHLO's logistic, ONNX's Sigmoid): one fused kernel for SiLU and its gradient. */
  logistic: {};
  erf: {};
  /**
   * GELU, exact form: x·Φ(x) = 0.5·x·(1 + erf(x/√2)). A primitive so that ONNX Runtime runs the forward
   * pass as one kernel: composed, the five passes of the forward could not be fused, because autodiff
   * kept their values for the backward pass (which here is computed from x).
   */
  gelu: {};
  /**
   * SiLU (swish): x·σ(x), Llama's gate activation. A primitive for its gradient, σ + y·(1 − σ) from the
   * result y: two products over the activations where autodiff of x·σ(x) wrote four.
   */
  silu: {};
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
  // fused losses (measured: composed from the primitives above, the vocabulary cross-entropy made
  // several full-size passes over [rows, V] logits in each direction)
  /** softmax_cross_entropy(logits [..., V], labels [...]): logsumexp(x) − x[label]; labels are clamped into range. */
  softmax_cross_entropy: {};
  /** softmax_cross_entropy_grad(logits, labels, g [...]): (softmax(x) − onehot(label)) · g, the loss's cotangent. */
  softmax_cross_entropy_grad: {};
  /**
   * softmax(x) along `axis`: exp(x − max) / Σ exp(x − max), a row holding NaN or +inf all NaN. A primitive
   * so that its gradient comes from its output, y·(g − Σ g·y), and ONNX Runtime runs it as one Softmax:
   * composed, autodiff kept the exponentials and the reciprocal sums for the backward pass, so no
   * executor could fuse the forward (attention's softmax was eleven passes over the scores, forward and back).
   */
  softmax: { axis: number };
  // collectives
  all_reduce: {}; // sum over replicas; identity on one replica
  // control flow
  /**
   * A loop over a leading axis (JAX's lax.scan). Operands: [consts..., carry..., xs...]; results:
   * [carry..., ys...] (the one primitive with several results: see Eqn.outs). `body` maps
   * [consts..., carry..., x slices...] → [carry..., y slices...] and holds no constants of its own
   * (closed-over values are hoisted into the operands); it runs `length` times, over indices
   * length-1 … 0 when `reverse`, and ys are stacked along a new axis 0 in index order.
   */
  scan: { body: Program; numConsts: number; numCarry: number; length: number; reverse: boolean };
}

/** The name of a primitive operation. */
export type Prim = keyof PrimParams;

/** One equation of a traced program: a primitive applied to input variables, with its parameters. */
export interface Eqn<P extends Prim = Prim> {
  readonly prim: P;
  readonly inputs: readonly Var[];
  /** The result (for a primitive with several results, the first of them). */
  readonly out: Var;
  /** Every result of a primitive with several results (scan), `outs[0] === out`; absent otherwise. */
  readonly outs?: readonly Var[];
  readonly params: PrimParams[P];
}

/** The primitives whose equations have several results. */
export const MULTI_RESULT: ReadonlySet<Prim> = new Set<Prim>(["scan"]);

/** An equation's results, one or several. */
export function eqnOuts(e: Eqn): readonly Var[] {
  return e.outs ?? [e.out];
}

/** Every equation of a program, those of its loop bodies (recursively) right after their loop's. */
export function* allEquations(p: Program): Generator<Eqn> {
  for (const e of p.eqns) {
    yield e;
    if (e.prim === "scan") yield* allEquations((e.params as PrimParams["scan"]).body);
  }
}

/** A constant of a traced program: its variable and its host value. */
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

/** An abstract value as text, e.g. "f32[2,3]". */
export function fmtAVal(a: AVal): string {
  return `${a.dtype}${fmtShape(a.shape)}`;
}

function isProgram(v: unknown): v is Program {
  return typeof v === "object" && v !== null && "eqns" in v && "inputs" in v;
}

function fmtParam(v: unknown): string {
  if (Array.isArray(v)) return `[${v.join(",")}]`;
  if (isProgram(v)) return v.name;
  return String(v);
}

/** A readable listing of a program, one equation a line (used in errors and golden tests); bodies follow, indented. */
export function printProgram(p: Program, indent = ""): string {
  const name = (v: Var) => `%${v.id}`;
  const lines = [`${indent}program ${p.name}(${p.inputs.map((v) => `${name(v)}: ${fmtAVal(v.aval)}`).join(", ")})`];
  for (const c of p.consts) lines.push(`${indent}  ${name(c.v)} = const ${fmtAVal(c.v.aval)}`);
  for (const e of p.eqns) {
    const ps = Object.entries(e.params as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${fmtParam(v)}`)
      .join(" ");
    const outs = eqnOuts(e)
      .map((o) => `${name(o)}: ${fmtAVal(o.aval)}`)
      .join(", ");
    lines.push(`${indent}  ${outs} = ${e.prim}${ps ? `{${ps}}` : ""} ${e.inputs.map(name).join(" ")}`);
    for (const v of Object.values(e.params as Record<string, unknown>)) if (isProgram(v)) lines.push(printProgram(v, `${indent}    `));
  }
  lines.push(`${indent}  return ${p.outputs.map(name).join(", ")}`);
  return lines.join("\n");
}
