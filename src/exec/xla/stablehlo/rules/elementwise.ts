// Elementwise primitives: each is one StableHLO op with the IR's semantics, except where noted.
import { isFloat, type DType } from "../../../../core/dtype.js";
import type { CompareDirection } from "../../../../core/ir.js";
import type { FunctionEmitter, Value } from "../emitter.js";
import { comparisonType } from "../types.js";
import type { LoweringRule, LoweringTable } from "./rule.js";

function unary(op: string): LoweringRule<any> {
  return (cx, [x], _p, out) => cx.emit.op(op, [x!], out);
}

function binary(op: string): LoweringRule<any> {
  return (cx, [x, y], _p, out) => cx.emit.op(op, [x!, y!], out);
}

const DIRECTION: Record<CompareDirection, string> = { eq: "EQ", ne: "NE", lt: "LT", le: "LE", gt: "GT", ge: "GE" };

/** `stablehlo.compare` (FLOAT comparisons follow IEEE: NaN is unequal to everything, as in JS). */
export function compare(emit: FunctionEmitter, direction: CompareDirection, a: Value, b: Value): Value {
  const attrs =
    `comparison_direction = #stablehlo<comparison_direction ${DIRECTION[direction]}>, ` +
    `compare_type = #stablehlo<comparison_type ${comparisonType(a.aval.dtype)}>`;
  return emit.op("stablehlo.compare", [a, b], { shape: a.aval.shape, dtype: "bool" }, attrs);
}

export function select(emit: FunctionEmitter, pred: Value, onTrue: Value, onFalse: Value): Value {
  return emit.op("stablehlo.select", [pred, onTrue, onFalse], onTrue.aval);
}

const isUnsigned = (d: DType) => d === "u32" || d === "bool";

/**
 * Float max/min propagate NaN, as the IR specifies (JS Math.max). stablehlo.maximum says so too, but
 * XLA:CPU compiles it to a plain comparison by default (its fast min/max), which returns the other
 * operand: the NaN is selected explicitly (the extra ops fuse into the same loop).
 */
function nanPropagating(op: string): LoweringRule<any> {
  return (cx, [a, b], _p, out) => {
    const m = cx.emit.op(op, [a!, b!], out);
    if (!isFloat(out.dtype)) return m;
    return select(cx.emit, compare(cx.emit, "ne", a!, a!), a!, select(cx.emit, compare(cx.emit, "ne", b!, b!), b!, m));
  };
}

/** A plain integer conversion (wraps to the narrower type, sign-extends to the wider one). */
const widthCast = (emit: FunctionEmitter, x: Value, dtype: DType): Value =>
  emit.op("stablehlo.convert", [x], { shape: x.aval.shape, dtype });

/**
 * i64 bitwise ops have the IR's (the reference's) semantics: JS bit operators, which work on the low
 * 32 bits and sign-extend the 32-bit result. So i64 operands are narrowed to i32, the op runs there,
 * and the result is widened back; the other dtypes map onto the StableHLO op directly.
 */
function bitwise(op: string, arity: 1 | 2): LoweringRule<any> {
  return (cx, ins, _p, out) => {
    if (out.dtype !== "i64") return cx.emit.op(op, ins.slice(0, arity), out);
    const narrow = ins.slice(0, arity).map((v) => widthCast(cx.emit, v, "i32"));
    return widthCast(cx.emit, cx.emit.op(op, narrow, { shape: out.shape, dtype: "i32" }), "i64");
  };
}

/**
 * Shifts: an amount of the bit width or more (or negative) gives 0, in StableHLO as in the IR. For
 * i64 the IR shifts the low 32 bits (as `bitwise`), so an amount outside [0, 32) becomes 32 before it
 * is narrowed, where it could otherwise wrap into range.
 */
function shift(op: string): LoweringRule<any> {
  return (cx, [x, y], _p, out) => {
    if (out.dtype !== "i64") return cx.emit.op(op, [x!, y!], out);
    const { emit } = cx,
      shape = y!.aval.shape;
    const outside = emit.op(
      "stablehlo.or",
      [compare(emit, "lt", y!, emit.splat("i64", shape, 0)), compare(emit, "ge", y!, emit.splat("i64", shape, 32))],
      { shape, dtype: "bool" },
    );
    const amount = select(emit, outside, emit.splat("i64", shape, 32), y!);
    const shifted = emit.op(op, [widthCast(emit, x!, "i32"), widthCast(emit, amount, "i32")], { shape: out.shape, dtype: "i32" });
    return widthCast(emit, shifted, "i64");
  };
}

export const ELEMENTWISE_LOWERINGS: LoweringTable<
  | "neg"
  | "exp"
  | "log"
  | "tanh"
  | "logistic"
  | "silu"
  | "erf"
  | "rsqrt"
  | "sqrt"
  | "abs"
  | "sin"
  | "cos"
  | "is_finite"
  | "not"
  | "add"
  | "sub"
  | "mul"
  | "div"
  | "pow"
  | "max"
  | "min"
  | "and"
  | "or"
  | "xor"
  | "shift_left"
  | "shift_right_logical"
  | "compare"
  | "select"
  | "stop_gradient"
> = {
  neg: unary("stablehlo.negate"),
  exp: unary("stablehlo.exponential"),
  log: unary("stablehlo.log"),
  tanh: unary("stablehlo.tanh"),
  logistic: unary("stablehlo.logistic"),
  // x·σ(x): XLA fuses the two into one loop.
  silu: (cx, [x], _p, out) => cx.emit.op("stablehlo.multiply", [x!, cx.emit.op("stablehlo.logistic", [x!], out)], out),
  rsqrt: unary("stablehlo.rsqrt"),
  sqrt: unary("stablehlo.sqrt"),
  sin: unary("stablehlo.sine"),
  cos: unary("stablehlo.cosine"),
  is_finite: unary("stablehlo.is_finite"),
  not: bitwise("stablehlo.not", 1),
  // StableHLO has no erf; CHLO's is decomposed by XLA's own legalization when it parses the module.
  erf: unary("chlo.erf"),
  // stablehlo.abs takes signed and float operands only; |x| of an unsigned value is x.
  abs: (cx, [x], p, out) => (isUnsigned(x!.aval.dtype) ? x! : unary("stablehlo.abs")(cx, [x!], p, out)),

  add: binary("stablehlo.add"),
  sub: binary("stablehlo.subtract"),
  mul: binary("stablehlo.multiply"),
  // Integer division by zero gives -1 (all ones), as the IR specifies, because that is XLA's answer.
  div: binary("stablehlo.divide"),
  pow: binary("stablehlo.power"),
  max: nanPropagating("stablehlo.maximum"),
  min: nanPropagating("stablehlo.minimum"),
  and: bitwise("stablehlo.and", 2),
  or: bitwise("stablehlo.or", 2),
  xor: bitwise("stablehlo.xor", 2),
  shift_left: shift("stablehlo.shift_left"),
  shift_right_logical: shift("stablehlo.shift_right_logical"),
  compare: (cx, [a, b], { direction }) => compare(cx.emit, direction, a!, b!),
  select: (cx, [p, t, f]) => select(cx.emit, p!, t!, f!),
  // Gradients are the engine's business; on the device the value passes through.
  stop_gradient: (_cx, [x]) => x!,
};
