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

/** Elementwise a + b (broadcasting; a JS number takes the other operand's dtype). */
export const add = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("add", a, b);
/** Elementwise a - b (broadcasting). */
export const sub = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("sub", a, b);
/** Elementwise a * b (broadcasting). */
export const mul = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("mul", a, b);
/** Elementwise a / b (broadcasting; integer division truncates). */
export const div = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("div", a, b);
/** Elementwise a to the power b (broadcasting). */
export const pow = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("pow", a, b);
/** Elementwise maximum of a and b (broadcasting). */
export const maximum = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("max", a, b);
/** Elementwise minimum of a and b (broadcasting). */
export const minimum = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("min", a, b);
/** Elementwise bitwise (or logical, for bool) and. */
export const bitAnd = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("and", a, b);
/** Elementwise bitwise (or logical, for bool) or. */
export const bitOr = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("or", a, b);
/** Elementwise bitwise (or logical, for bool) exclusive or. */
export const bitXor = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("xor", a, b);
/** Elementwise a shifted left by b bits. */
export const shiftLeft = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("shift_left", a, b);
/** Elementwise a shifted right by b bits, filling with zeros. */
export const shiftRightLogical = (a: ArrayOrScalar, b: ArrayOrScalar) => binary("shift_right_logical", a, b);

/** Elementwise comparison of a and b in `direction`, as a bool array (broadcasting). */
export function compare(a: ArrayOrScalar, b: ArrayOrScalar, direction: CompareDirection): Array {
  const [x, y] = broadcastPair(...unify(a, b));
  return bind("compare", [x, y], { direction });
}

const unary = (prim: Prim) => (x: ArrayOrScalar) => bind(prim as "neg", [asArray(x)], {});
/** Elementwise -x. */
export const neg = unary("neg");
/** Elementwise e to the x. */
export const exp = unary("exp");
/** Elementwise natural logarithm. */
export const log = unary("log");
/** Elementwise hyperbolic tangent. */
export const tanh = unary("tanh");
/** Elementwise logistic sigmoid, 1 / (1 + e^-x). */
export const logistic = unary("logistic");
/** Elementwise Gauss error function. */
export const erf = unary("erf");
/** Elementwise square root. */
export const sqrt = unary("sqrt");
/** Elementwise 1 / sqrt(x). */
export const rsqrt = unary("rsqrt");
/** Elementwise absolute value. */
export const abs = unary("abs");
/** Elementwise sine. */
export const sin = unary("sin");
/** Elementwise cosine. */
export const cos = unary("cos");
/** Elementwise: true where x is neither infinite nor NaN. */
export const isFinite = unary("is_finite");
/** Elementwise bitwise (or logical, for bool) not. */
export const bitNot = unary("not");

/** `x` converted to `dtype` (`x` itself when it already has it). */
export function astype(x: Array, dtype: DType): Array {
  if (x.dtype !== dtype) checkDType("astype", dtype);
  return x.dtype === dtype ? x : bind("convert", [x], { dtype });
}

/** Elementwise x * x. */
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
