// Elementwise primitives. Float math runs in f32 for bf16/f16 operands and is rounded back per op (the
// reference rounds each op's exact result once; the f32 intermediate can differ from it by one bf16
// ulp in rare double-rounding cases). Integer semantics follow the reference kernels exactly: wrapping
// arithmetic, 32-bit shifts that give 0 past the width, division by zero defined, saturating
// float→int conversion.
import type { DType } from "../../core/dtype.js";
import { isFloat } from "../../core/dtype.js";
import type { CompareDirection } from "../../core/ir.js";
import type { GraphBuilder, Val } from "./graph-builder.js";
import { computeDtype } from "./graph-builder.js";
import type { Lowering } from "./lowering-signature.js";
import { MS_DOMAIN } from "../../io/onnx/proto.js";

/** A unary op, in f32 for 16-bit floats (natively otherwise); `f64` false where the CPU provider has no double kernel. */
function unary(op: string, f64 = true): Lowering<any> {
  return (g, [x], _p, out) => {
    let c = computeDtype(x!.dtype);
    if (c === "f64" && !f64) c = "f32";
    return g.cast(g.elementwise(op, [g.cast(x!, c)], c), out.dtype);
  };
}

/**
 * GELU: in a session, one Gelu (ORT's contrib kernel, f32 only); in an exported model the standard ops
 * 0.5·x·(1 + erf(x/√2)), which any ONNX runtime reads (ONNX Runtime fuses them back when it loads them).
 */
const gelu: Lowering<"gelu"> = (g, [x], _p, out) => {
  const v = g.cast(x!, "f32");
  if (g.relayOutConstants) return g.cast(g.elementwise("Gelu", [v], "f32", undefined, MS_DOMAIN), out.dtype);
  const op = (name: string, a: Val, b?: number) =>
    g.elementwise(name, b === undefined ? [a] : [a, g.scalar("f32", b, a.full.length)], "f32");
  const half = op("Mul", v, 0.5);
  const y = g.elementwise("Mul", [half, op("Add", op("Erf", op("Mul", v, Math.SQRT1_2)), 1)], "f32");
  return g.cast(y, out.dtype);
};

/**
 * SiLU: x · Sigmoid(x), which ONNX Runtime's optimizer fuses into one QuickGelu kernel where nothing else
 * reads the Sigmoid. That kernel is f32 only and the fusion does not check, so f64 is written
 * x / (1 + e^-x) instead (e^-x overflowing to ∞ gives the limit, -0).
 */
const silu: Lowering<"silu"> = (g, [x], _p, out) => {
  const c = computeDtype(x!.dtype);
  const v = g.cast(x!, c);
  if (c !== "f64") return g.cast(g.elementwise("Mul", [v, g.elementwise("Sigmoid", [v], c)], c), out.dtype);
  const onePlus = g.elementwise("Add", [g.elementwise("Exp", [g.elementwise("Neg", [v], c)], c), g.scalar(c, 1, v.full.length)], c);
  return g.cast(g.elementwise("Div", [v, onePlus], c), out.dtype);
};

/** An arithmetic op in the operands' compute dtype (integers natively: ORT's CPU kernels wrap). */
function arithmetic(op: string): Lowering<any> {
  return (g, [a, b], _p, out) => {
    const c = computeDtype(a!.dtype);
    return g.cast(g.elementwise(op, [g.cast(a!, c), g.cast(b!, c)], c), out.dtype);
  };
}

const rsqrt: Lowering<"rsqrt"> = (g, [x], _p, out) => {
  const c = computeDtype(x!.dtype);
  const s = g.elementwise("Sqrt", [g.cast(x!, c)], c);
  return g.cast(g.elementwise("Reciprocal", [s], c), out.dtype);
};

const neg: Lowering<"neg"> = (g, [x], _p, out) => {
  // No Neg kernel for u32: 0 - x wraps the same way.
  if (x!.dtype === "u32") return g.elementwise("Sub", [g.scalar("u32", 0, x!.full.length), x!], "u32");
  return unary("Neg")(g, [x!], {}, out);
};

const abs: Lowering<"abs"> = (g, [x], _p, out) => (x!.dtype === "u32" ? x! : unary("Abs")(g, [x!], {}, out));

/** x - x is 0 exactly when x is finite (inf - inf and NaN - NaN are NaN): two ops instead of IsInf, IsNaN, Or, Not. */
const isFinite: Lowering<"is_finite"> = (g, [x]) => {
  const c = g.cast(x!, computeDtype(x!.dtype));
  const d = g.elementwise("Sub", [c, c], c.dtype);
  return g.elementwise("Equal", [d, g.scalar(c.dtype, 0, d.full.length)], "bool");
};

/**
 * The reference computes i64 bitwise ops with JS bit operators: on the low 32 bits, sign-extending the
 * 32-bit result. Kiln's semantics are the reference's, so i64 goes through i32 here.
 */
function bitwise(g: GraphBuilder, boolOp: string, intOp: string, ins: readonly Val[]): Val {
  const d = ins[0]!.dtype;
  if (d === "bool") return g.elementwise(boolOp, ins, d);
  if (d === "i64")
    return g.cast(
      bitwise(
        g,
        boolOp,
        intOp,
        ins.map((v) => g.cast(v, "i32")),
      ),
      "i64",
    );
  return g.elementwise(intOp, ins, d);
}

const not: Lowering<"not"> = (g, ins) => bitwise(g, "Not", "BitwiseNot", ins);

function logical(boolOp: string, intOp: string): Lowering<any> {
  return (g, ins) => bitwise(g, boolOp, intOp, ins);
}

const rank = (v: Val) => v.full.length;

/** Integer division truncating toward zero, with the reference's answers where C would trap. */
function intDivide(g: GraphBuilder, a: Val, b: Val): Val {
  const d = a.dtype;
  const eq = (v: Val, k: number) => g.elementwise("Equal", [v, g.scalar(d, k, rank(v))], "bool");
  const zero = eq(b, 0);
  if (d === "u32") {
    const q = g.elementwise("Div", [a, g.elementwise("Max", [b, g.scalar(d, 1, rank(b))], d)], d);
    return g.select(zero, g.scalar(d, 0xffffffff, rank(q)), q);
  }
  // x / 0 → -1 and INT_MIN / -1 (which traps) → wrapped negation, as the reference computes them.
  const minusOne = eq(b, -1);
  const safe = g.select(g.elementwise("Or", [zero, minusOne], "bool"), g.scalar(d, 1, rank(b)), b);
  const q = g.elementwise("Div", [a, safe], d);
  const negated = g.select(minusOne, g.elementwise("Neg", [a], d), q);
  return g.select(zero, g.scalar(d, -1, rank(q)), negated);
}

const div: Lowering<"div"> = (g, ins, p, out) =>
  isFloat(ins[0]!.dtype) ? arithmetic("Div")(g, ins, p, out) : intDivide(g, ins[0]!, ins[1]!);

/**
 * Shifts on the 32-bit pattern (ONNX BitShift is unsigned-only; a shift by ≥ 32 gives 0 on ORT's CPU
 * kernel, as in the reference). i64 follows the reference, which shifts the low 32 bits and
 * sign-extends the 32-bit result (see `bitwise`).
 */
function shift(direction: "LEFT" | "RIGHT"): Lowering<any> {
  return (g, [a, b]) => {
    const d = a!.dtype;
    // An i64 shift amount past 32 (or negative) must not wrap into range when narrowed: make it 32.
    const amount = d === "i64" ? outOfRangeTo32(g, b!) : b!;
    const r = g.elementwise("BitShift", [g.cast(a!, "u32"), g.cast(amount, "u32")], "u32", {
      direction: { kind: "string", value: direction },
    });
    return d === "i64" ? g.cast(g.cast(r, "i32"), "i64") : g.cast(r, d);
  };
}

function outOfRangeTo32(g: GraphBuilder, b: Val): Val {
  const r = rank(b);
  const out = g.elementwise(
    "Or",
    [g.elementwise("Less", [b, g.scalar("i64", 0, r)], "bool"), g.elementwise("Greater", [b, g.scalar("i64", 32, r)], "bool")],
    "bool",
  );
  return g.select(out, g.scalar("i64", 32, r), b);
}

/**
 * max/min: ONNX Max/Min propagate NaN, as the reference does. ORT 1.30's int64 Max/Min on x86 CPUs
 * get values beyond 32 bits wrong (its comparisons are right), so i64 selects on a comparison.
 */
function extremum(op: "Max" | "Min"): Lowering<any> {
  return (g, [a, b], p, out) => {
    if (a!.dtype !== "i64") return arithmetic(op)(g, [a!, b!], p, out);
    return g.select(g.elementwise(op === "Max" ? "Greater" : "Less", [a!, b!], "bool"), a!, b!);
  };
}

const COMPARE_OP: Record<CompareDirection, string> = {
  eq: "Equal",
  ne: "Equal",
  lt: "Less",
  le: "LessOrEqual",
  gt: "Greater",
  ge: "GreaterOrEqual",
};

const compare: Lowering<"compare"> = (g, [a, b], { direction }) => {
  // 16-bit floats compare exactly in f32; bool has only Equal, so order comparisons go through i32.
  let c = computeDtype(a!.dtype);
  if (c === "bool" && direction !== "eq" && direction !== "ne") c = "i32";
  const r = g.elementwise(COMPARE_OP[direction], [g.cast(a!, c), g.cast(b!, c)], "bool");
  return direction === "ne" ? g.elementwise("Not", [r], "bool") : r;
};

const select: Lowering<"select"> = (g, [p, t, f]) => g.select(p!, t!, f!);

const isIntegral = (d: DType) => d === "i32" || d === "u32" || d === "i64";

/** The integer range each float saturates into (exact in f64; the i64 bound is the largest double below 2^63). */
const INT_RANGE: Record<"i32" | "u32" | "i64", [number, number]> = {
  i32: [-2147483648, 2147483647],
  u32: [0, 4294967295],
  i64: [-(2 ** 63), 2 ** 63 - 1024],
};

/** float → integer: truncate toward zero, saturate, NaN → 0 (ONNX Cast leaves these undefined). */
function floatToInt(g: GraphBuilder, x: Val, to: "i32" | "u32" | "i64"): Val {
  const wide = g.cast(x, "f64"); // exact for every float dtype, and the bounds are exact in f64
  const nan = g.elementwise("IsNaN", [wide], "bool");
  const clean = g.select(nan, g.scalar("f64", 0, rank(wide)), wide);
  const [lo, hi] = INT_RANGE[to];
  const clipped = g.elementwise("Clip", [clean, g.scalar("f64", lo), g.scalar("f64", hi)], "f64");
  return g.cast(clipped, to);
}

const convert: Lowering<"convert"> = (g, [x], { dtype: to }) => {
  const from = x!.dtype;
  if (from === to) return x!;
  if (isFloat(from) && isIntegral(to)) return floatToInt(g, x!, to as "i32" | "u32" | "i64");
  // Float → bool is x != 0 (NaN is true), float → float rounds to nearest even; 16-bit floats widen
  // to f32 first (exact) so that bf16 ↔ f16 rounds once. Integer → integer wraps; → float rounds.
  if (isFloat(from)) return g.cast(g.cast(x!, computeDtype(from)), to);
  return g.cast(x!, to);
};

export const ELEMENTWISE_LOWERINGS = {
  neg,
  exp: unary("Exp"),
  log: unary("Log"),
  tanh: unary("Tanh"),
  logistic: unary("Sigmoid"),
  // The CPU provider has Erf for float only: f64 erf is computed in f32 (about 1e-7 relative).
  erf: unary("Erf", false),
  gelu,
  silu,
  rsqrt,
  sqrt: unary("Sqrt"),
  abs,
  sin: unary("Sin"),
  cos: unary("Cos"),
  is_finite: isFinite,
  not,
  add: arithmetic("Add"),
  sub: arithmetic("Sub"),
  mul: arithmetic("Mul"),
  div,
  pow: arithmetic("Pow"),
  max: extremum("Max"),
  min: extremum("Min"),
  and: logical("And", "BitwiseAnd"),
  or: logical("Or", "BitwiseOr"),
  xor: logical("Xor", "BitwiseXor"),
  shift_left: shift("LEFT"),
  shift_right_logical: shift("RIGHT"),
  compare,
  select,
  convert,
  stop_gradient: ((_g, [x]) => x!) as Lowering<"stop_gradient">,
} satisfies { [P in string]: Lowering<any> };
