// Elementwise primitives: each is one StableHLO op with the IR's semantics, except where noted.
import type { DType } from "../../../../core/dtype.js";
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
  const attrs = `comparison_direction = #stablehlo<comparison_direction ${DIRECTION[direction]}>, compare_type = #stablehlo<comparison_type ${comparisonType(a.aval.dtype)}>`;
  return emit.op("stablehlo.compare", [a, b], { shape: a.aval.shape, dtype: "bool" }, attrs);
}

export function select(emit: FunctionEmitter, pred: Value, onTrue: Value, onFalse: Value): Value {
  return emit.op("stablehlo.select", [pred, onTrue, onFalse], onTrue.aval);
}

const isUnsigned = (d: DType) => d === "u32" || d === "bool";

export const ELEMENTWISE_LOWERINGS: LoweringTable<
  | "neg"
  | "exp"
  | "log"
  | "tanh"
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
  rsqrt: unary("stablehlo.rsqrt"),
  sqrt: unary("stablehlo.sqrt"),
  sin: unary("stablehlo.sine"),
  cos: unary("stablehlo.cosine"),
  is_finite: unary("stablehlo.is_finite"),
  not: unary("stablehlo.not"),
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
  max: binary("stablehlo.maximum"),
  min: binary("stablehlo.minimum"),
  and: binary("stablehlo.and"),
  or: binary("stablehlo.or"),
  xor: binary("stablehlo.xor"),
  // Shift amounts of the bit width or more give 0 in StableHLO, as in the IR.
  shift_left: binary("stablehlo.shift_left"),
  shift_right_logical: binary("stablehlo.shift_right_logical"),
  compare: (cx, [a, b], { direction }) => compare(cx.emit, direction, a!, b!),
  select: (cx, [p, t, f]) => select(cx.emit, p!, t!, f!),
  // Gradients are the engine's business; on the device the value passes through.
  stop_gradient: (_cx, [x]) => x!,
};
