// Elementwise math with numpy broadcasting and JAX-style dtype promotion (JS numbers are weak scalars:
// `x.mul(2)` keeps x's dtype).
import { Array, type ArrayOrScalar } from "../array.js";
import type { DType } from "../dtype.js";
import { isFloat, promoteTypes } from "../dtype.js";
import type { CompareDirection, Prim } from "../ir.js";
import { broadcastShapes } from "../shape.js";
import { bind } from "./dispatch.js";
import { checkDType } from "../check-array-args.js";
import { asArray, weakScalar } from "./creation.js";
import { broadcastTo } from "./shape.js";

/** Brings two operands to one dtype: weak scalars adopt the array's dtype, arrays promote. */
function unify(a: ArrayOrScalar, b: ArrayOrScalar): [Array, Array] {
  const weakA = !(a instanceof Array) || a.weak,
    weakB = !(b instanceof Array) || b.weak;
  const scalarDtype = (v: ArrayOrScalar, other: DType): DType => {
    if (v instanceof Array) return isFloat(other) || !isFloat(v.dtype) ? other : v.dtype;
    if (typeof v === "boolean") return other;
    return Number.isInteger(v) || isFloat(other) ? other : "f32";
  };
  let dtype: DType;
  if (weakA && !weakB) dtype = scalarDtype(a, (b as Array).dtype);
  else if (weakB && !weakA) dtype = scalarDtype(b, (a as Array).dtype);
  else dtype = promoteTypes(asArray(a).dtype, asArray(b).dtype);
  const conv = (v: ArrayOrScalar): Array => (v instanceof Array ? astype(v, dtype) : weakScalar(v, dtype));
  return [conv(a), conv(b)];
}

function broadcastPair(a: Array, b: Array): [Array, Array] {
  const shape = broadcastShapes(a.shape, b.shape);
  return [broadcastTo(a, shape), broadcastTo(b, shape)];
}

function binary(prim: Prim, a: ArrayOrScalar, b: ArrayOrScalar): Array {
  const [x, y] = broadcastPair(...unify(a, b));
  const out = bind(prim as "add", [x, y], {});
  return out;
}

export const add = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("add", a, b);
export const sub = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("sub", a, b);
export const mul = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("mul", a, b);
export const div = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("div", a, b);
export const pow = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("pow", a, b);
export const maximum = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("max", a, b);
export const minimum = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("min", a, b);
export const bitAnd = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("and", a, b);
export const bitOr = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("or", a, b);
export const bitXor = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("xor", a, b);
export const shiftLeft = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("shift_left", a, b);
export const shiftRightLogical = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("shift_right_logical", a, b);

export function compare(a: ArrayOrScalar, b: ArrayOrScalar, direction: CompareDirection): Array {
  const [x, y] = broadcastPair(...unify(a, b));
  return bind("compare", [x, y], { direction });
}

const unary = (prim: Prim) => (x: ArrayOrScalar) => bind(prim as "neg", [asArray(x)], {});
export const neg = unary("neg");
export const exp = unary("exp");
export const log = unary("log");
export const tanh = unary("tanh");
export const logistic = unary("logistic");
export const erf = unary("erf");
export const sqrt = unary("sqrt");
export const rsqrt = unary("rsqrt");
export const abs = unary("abs");
export const sin = unary("sin");
export const cos = unary("cos");
export const isFinite = unary("is_finite");
export const bitNot = unary("not");

export function astype(x: Array, dtype: DType): Array {
  if (x.dtype !== dtype) checkDType("astype", dtype);
  return x.dtype === dtype ? x : bind("convert", [x], { dtype });
}

export function square(x: Array): Array {
  return mul(x, x);
}

/** Keeps the value, cuts the gradient. */
export function stopGradient(x: Array): Array {
  return bind("stop_gradient", [x], {});
}

/** where(cond, a, b): a where cond is true, else b (broadcasting; the remedy for data-dependent ifs). */
export function where(cond: ArrayOrScalar, a: ArrayOrScalar, b: ArrayOrScalar): Array {
  const c = asArray(cond, "bool");
  const pred = c.dtype === "bool" ? c : compare(c, 0, "ne");
  const [x, y] = unify(a, b);
  const shape = broadcastShapes(broadcastShapes(pred.shape, x.shape), y.shape);
  return bind("select", [broadcastTo(pred, shape), broadcastTo(x, shape), broadcastTo(y, shape)], {});
}
