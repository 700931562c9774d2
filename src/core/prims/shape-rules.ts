// Shape and dtype rules: one entry per primitive. Each checks its operands and returns the result's
// abstract value; a violation is a bug above the IR, so the messages name the primitive and the shapes.
import type { DType } from "../dtype.js";
import { isFloat, isInt } from "../dtype.js";
import type { AVal, Prim, PrimParams } from "../ir.js";
import { fmtShape, shapesEqual } from "../shape.js";

type Rule<P extends Prim> = (ins: readonly AVal[], params: PrimParams[P]) => AVal;
/** The rule of a primitive with several results. */
export type MultiRule<P extends Prim> = (ins: readonly AVal[], params: PrimParams[P]) => readonly AVal[];
export type ShapeRuleTable = { [P in Prim]: P extends "scan" ? MultiRule<P> : Rule<P> };

function fail(prim: string, msg: string): never {
  throw new Error(`${prim}: ${msg}`);
}

function arity(prim: string, ins: readonly AVal[], n: number): void {
  if (ins.length !== n) fail(prim, `expects ${n} operands, got ${ins.length}`);
}

function unaryFloat(prim: string): Rule<any> {
  return (ins) => {
    arity(prim, ins, 1);
    if (!isFloat(ins[0]!.dtype)) fail(prim, `needs a float operand, got ${ins[0]!.dtype}`);
    return ins[0]!;
  };
}

function sameBinary(prim: string, allowed: (d: DType) => boolean, what: string): Rule<any> {
  return (ins) => {
    arity(prim, ins, 2);
    const [a, b] = ins as [AVal, AVal];
    if (!shapesEqual(a.shape, b.shape)) fail(prim, `operand shapes differ: ${fmtShape(a.shape)} vs ${fmtShape(b.shape)}`);
    if (a.dtype !== b.dtype) fail(prim, `operand dtypes differ: ${a.dtype} vs ${b.dtype}`);
    if (!allowed(a.dtype)) fail(prim, `needs ${what} operands, got ${a.dtype}`);
    return a;
  };
}

const numeric = (d: DType) => d !== "bool";
const integral = (d: DType) => isInt(d) || d === "bool";

function checkAxes(prim: string, axes: readonly number[], rank: number): void {
  for (const a of axes) if (!Number.isInteger(a) || a < 0 || a >= rank) fail(prim, `axis ${a} out of range for rank ${rank}`);
  if (new Set(axes).size !== axes.length) fail(prim, `repeated axis in [${axes.join(",")}]`);
}

function reduceRule(prim: string): Rule<"reduce_sum" | "reduce_max"> {
  return (ins, { axes }) => {
    arity(prim, ins, 1);
    const x = ins[0]!;
    checkAxes(prim, axes, x.shape.length);
    if (x.dtype === "bool") fail(prim, "cannot reduce bool; convert it first");
    return { shape: x.shape.filter((_, i) => !axes.includes(i)), dtype: x.dtype };
  };
}

/** Cross-entropy operands: float logits [..., V] (V ≥ 1) and i32/u32 labels [...]; returns the per-position aval. */
function crossEntropyOperands(prim: string, logits: AVal, labels: AVal): AVal {
  if (!isFloat(logits.dtype)) fail(prim, `needs float logits, got ${logits.dtype}`);
  const rank = logits.shape.length;
  if (rank < 1 || logits.shape[rank - 1]! < 1) fail(prim, `logits need a non-empty class axis, got ${fmtShape(logits.shape)}`);
  if (labels.dtype !== "i32" && labels.dtype !== "u32") fail(prim, `labels must be i32 or u32, got ${labels.dtype}`);
  const rows = logits.shape.slice(0, -1);
  if (!shapesEqual(rows, labels.shape))
    fail(prim, `labels ${fmtShape(labels.shape)} must have the logits' shape ${fmtShape(logits.shape)} without its class axis`);
  return { shape: rows, dtype: logits.dtype };
}

const sameAVal = (a: AVal, b: AVal) => a.dtype === b.dtype && shapesEqual(a.shape, b.shape);
const fmt = (a: AVal) => `${a.dtype}${fmtShape(a.shape)}`;

/** scan: operands [consts, carry, xs] against the body's inputs; results [carry, ys stacked on a new axis 0]. */
export function scanRule(ins: readonly AVal[], { body, numConsts, numCarry, length }: PrimParams["scan"]): readonly AVal[] {
  if (!Number.isInteger(length) || length < 0) fail("scan", `length must be a non-negative integer, got ${length}`);
  if (body.consts.length) fail("scan", `the body ${body.name} holds constants; hoist them into the operands`);
  if (ins.length !== body.inputs.length) fail("scan", `expects ${body.inputs.length} operands (the body's inputs), got ${ins.length}`);
  const numXs = ins.length - numConsts - numCarry;
  if (numConsts < 0 || numCarry < 0 || numXs < 0)
    fail("scan", `numConsts ${numConsts} and numCarry ${numCarry} exceed ${ins.length} operands`);
  if (body.outputs.length < numCarry) fail("scan", `the body returns ${body.outputs.length} values for ${numCarry} carries`);
  ins.forEach((a, i) => {
    const want = body.inputs[i]!.aval;
    if (i < numConsts + numCarry) {
      if (!sameAVal(a, want)) fail("scan", `operand ${i} is ${fmt(a)} but the body takes ${fmt(want)}`);
    } else if (a.shape[0] !== length || !sameAVal({ shape: a.shape.slice(1), dtype: a.dtype }, want)) {
      fail(
        "scan",
        `scanned operand ${i - numConsts - numCarry} is ${fmt(a)}; the body takes slices ${fmt(want)} of a leading axis of ${length}`,
      );
    }
  });
  for (let i = 0; i < numCarry; i++) {
    const cin = body.inputs[numConsts + i]!.aval,
      cout = body.outputs[i]!.aval;
    if (!sameAVal(cin, cout))
      fail("scan", `body function carry input and carry output must have equal types: carry ${i} is ${fmt(cin)} in and ${fmt(cout)} out`);
  }
  return body.outputs.map((v, i) => (i < numCarry ? v.aval : { shape: [length, ...v.aval.shape], dtype: v.aval.dtype }));
}

/** Each primitive's shape and dtype rule: its result's abstract value from its inputs' (checking them). */
export const SHAPE_RULES: ShapeRuleTable = {
  neg: (ins) => {
    arity("neg", ins, 1);
    if (!numeric(ins[0]!.dtype)) fail("neg", "needs a numeric operand");
    return ins[0]!;
  },
  exp: unaryFloat("exp"),
  log: unaryFloat("log"),
  tanh: unaryFloat("tanh"),
  logistic: unaryFloat("logistic"),
  erf: unaryFloat("erf"),
  gelu: unaryFloat("gelu"),
  silu: unaryFloat("silu"),
  rsqrt: unaryFloat("rsqrt"),
  sqrt: unaryFloat("sqrt"),
  sin: unaryFloat("sin"),
  cos: unaryFloat("cos"),
  abs: (ins) => {
    arity("abs", ins, 1);
    if (!numeric(ins[0]!.dtype)) fail("abs", "needs a numeric operand");
    return ins[0]!;
  },
  is_finite: (ins) => {
    arity("is_finite", ins, 1);
    if (!isFloat(ins[0]!.dtype)) fail("is_finite", "needs a float operand");
    return { shape: ins[0]!.shape, dtype: "bool" };
  },
  not: (ins) => {
    arity("not", ins, 1);
    if (!integral(ins[0]!.dtype)) fail("not", "needs an integer or bool operand");
    return ins[0]!;
  },

  add: sameBinary("add", numeric, "numeric"),
  sub: sameBinary("sub", numeric, "numeric"),
  mul: sameBinary("mul", numeric, "numeric"),
  div: sameBinary("div", numeric, "numeric"),
  pow: sameBinary("pow", isFloat, "float"),
  max: sameBinary("max", numeric, "numeric"),
  min: sameBinary("min", numeric, "numeric"),
  and: sameBinary("and", integral, "integer or bool"),
  or: sameBinary("or", integral, "integer or bool"),
  xor: sameBinary("xor", integral, "integer or bool"),
  shift_left: sameBinary("shift_left", isInt, "integer"),
  shift_right_logical: sameBinary("shift_right_logical", isInt, "integer"),
  compare: (ins) => {
    arity("compare", ins, 2);
    const [a, b] = ins as [AVal, AVal];
    if (!shapesEqual(a.shape, b.shape) || a.dtype !== b.dtype)
      fail("compare", `operands differ: ${a.dtype}${fmtShape(a.shape)} vs ${b.dtype}${fmtShape(b.shape)}`);
    return { shape: a.shape, dtype: "bool" };
  },
  select: (ins) => {
    arity("select", ins, 3);
    const [p, t, f] = ins as [AVal, AVal, AVal];
    if (p.dtype !== "bool") fail("select", `predicate must be bool, got ${p.dtype}`);
    if (!shapesEqual(p.shape, t.shape) || !shapesEqual(t.shape, f.shape))
      fail("select", `shapes differ: ${fmtShape(p.shape)}, ${fmtShape(t.shape)}, ${fmtShape(f.shape)}`);
    if (t.dtype !== f.dtype) fail("select", `branch dtypes differ: ${t.dtype} vs ${f.dtype}`);
    return t;
  },
  convert: (ins, { dtype }) => {
    arity("convert", ins, 1);
    return { shape: ins[0]!.shape, dtype };
  },
  stop_gradient: (ins) => {
    arity("stop_gradient", ins, 1);
    return ins[0]!;
  },

  broadcast_in_dim: (ins, { shape, dims }) => {
    arity("broadcast_in_dim", ins, 1);
    const x = ins[0]!;
    if (dims.length !== x.shape.length)
      fail("broadcast_in_dim", `dims [${dims.join(",")}] must name one output dim per operand dim (rank ${x.shape.length})`);
    dims.forEach((d, i) => {
      if (d < 0 || d >= shape.length || (i > 0 && d <= dims[i - 1]!))
        fail("broadcast_in_dim", `dims [${dims.join(",")}] must be increasing and within rank ${shape.length}`);
      if (x.shape[i] !== 1 && x.shape[i] !== shape[d])
        fail("broadcast_in_dim", `operand dim ${i} (${x.shape[i]}) does not broadcast to ${shape[d]} in ${fmtShape(shape)}`);
    });
    return { shape, dtype: x.dtype };
  },
  reshape: (ins, { shape }) => {
    arity("reshape", ins, 1);
    const x = ins[0]!;
    const n = x.shape.reduce((a, b) => a * b, 1),
      m = shape.reduce((a, b) => a * b, 1);
    if (n !== m) fail("reshape", `cannot reshape ${fmtShape(x.shape)} (${n} elements) to ${fmtShape(shape)} (${m} elements)`);
    return { shape, dtype: x.dtype };
  },
  transpose: (ins, { perm }) => {
    arity("transpose", ins, 1);
    const x = ins[0]!;
    if (perm.length !== x.shape.length || [...perm].sort((a, b) => a - b).some((p, i) => p !== i))
      fail("transpose", `perm [${perm.join(",")}] is not a permutation of rank ${x.shape.length}`);
    return { shape: perm.map((p) => x.shape[p]!), dtype: x.dtype };
  },
  slice: (ins, { start, limit }) => {
    arity("slice", ins, 1);
    const x = ins[0]!;
    if (start.length !== x.shape.length || limit.length !== x.shape.length) fail("slice", "start and limit need one entry per dimension");
    x.shape.forEach((d, i) => {
      if (start[i]! < 0 || limit[i]! > d || start[i]! > limit[i]!)
        fail("slice", `range [${start[i]}, ${limit[i]}) is outside dimension ${i} of size ${d}`);
    });
    return { shape: x.shape.map((_, i) => limit[i]! - start[i]!), dtype: x.dtype };
  },
  concatenate: (ins, { axis }) => {
    if (ins.length < 1) fail("concatenate", "needs at least one operand");
    const x = ins[0]!;
    checkAxes("concatenate", [axis], x.shape.length);
    let total = 0;
    for (const y of ins) {
      if (y.dtype !== x.dtype || y.shape.length !== x.shape.length || y.shape.some((d, i) => i !== axis && d !== x.shape[i]))
        fail("concatenate", `operand ${y.dtype}${fmtShape(y.shape)} does not match ${x.dtype}${fmtShape(x.shape)} off axis ${axis}`);
      total += y.shape[axis]!;
    }
    return { shape: x.shape.map((d, i) => (i === axis ? total : d)), dtype: x.dtype };
  },
  pad: (ins, { low, high }) => {
    arity("pad", ins, 1);
    const x = ins[0]!;
    if (low.length !== x.shape.length || high.length !== x.shape.length) fail("pad", "low and high need one entry per dimension");
    const shape = x.shape.map((d, i) => d + low[i]! + high[i]!);
    if (shape.some((d) => d < 0)) fail("pad", `negative result shape ${fmtShape(shape)}`);
    return { shape, dtype: x.dtype };
  },

  dot_general: (ins, p) => {
    arity("dot_general", ins, 2);
    const [a, b] = ins as [AVal, AVal];
    if (a.dtype !== b.dtype) fail("dot_general", `operand dtypes differ: ${a.dtype} vs ${b.dtype}`);
    if (!numeric(a.dtype)) fail("dot_general", "needs numeric operands");
    checkAxes("dot_general", [...p.lhsContract, ...p.lhsBatch], a.shape.length);
    checkAxes("dot_general", [...p.rhsContract, ...p.rhsBatch], b.shape.length);
    if (p.lhsContract.length !== p.rhsContract.length || p.lhsBatch.length !== p.rhsBatch.length)
      fail("dot_general", "contracting/batch dimension lists differ in length");
    p.lhsContract.forEach((d, i) => {
      if (a.shape[d] !== b.shape[p.rhsContract[i]!])
        fail(
          "dot_general",
          `contracting sizes differ: lhs ${fmtShape(a.shape)} dim ${d} vs rhs ${fmtShape(b.shape)} dim ${p.rhsContract[i]}`,
        );
    });
    p.lhsBatch.forEach((d, i) => {
      if (a.shape[d] !== b.shape[p.rhsBatch[i]!])
        fail("dot_general", `batch sizes differ: lhs ${fmtShape(a.shape)} dim ${d} vs rhs ${fmtShape(b.shape)} dim ${p.rhsBatch[i]}`);
    });
    const lhsFree = a.shape.map((_, i) => i).filter((i) => !p.lhsContract.includes(i) && !p.lhsBatch.includes(i));
    const rhsFree = b.shape.map((_, i) => i).filter((i) => !p.rhsContract.includes(i) && !p.rhsBatch.includes(i));
    const shape = [...p.lhsBatch.map((d) => a.shape[d]!), ...lhsFree.map((d) => a.shape[d]!), ...rhsFree.map((d) => b.shape[d]!)];
    return { shape, dtype: p.outDtype ?? a.dtype };
  },
  reduce_sum: reduceRule("reduce_sum"),
  reduce_max: reduceRule("reduce_max"),

  iota: (ins, { shape, dim, dtype }) => {
    arity("iota", ins, 0);
    checkAxes("iota", [dim], shape.length);
    if (dtype === "bool") fail("iota", "cannot make a bool iota");
    return { shape, dtype };
  },
  take: (ins, { axis }) => {
    arity("take", ins, 2);
    const [x, idx] = ins as [AVal, AVal];
    checkAxes("take", [axis], x.shape.length);
    if (idx.dtype !== "i32" && idx.dtype !== "u32") fail("take", `indices must be i32 or u32, got ${idx.dtype}`);
    return { shape: [...x.shape.slice(0, axis), ...idx.shape, ...x.shape.slice(axis + 1)], dtype: x.dtype };
  },
  scatter_add: (ins, { axis }) => {
    arity("scatter_add", ins, 3);
    const [x, idx, upd] = ins as [AVal, AVal, AVal];
    checkAxes("scatter_add", [axis], x.shape.length);
    if (idx.dtype !== "i32" && idx.dtype !== "u32") fail("scatter_add", `indices must be i32 or u32, got ${idx.dtype}`);
    const want = [...x.shape.slice(0, axis), ...idx.shape, ...x.shape.slice(axis + 1)];
    if (!shapesEqual(want, upd.shape) || upd.dtype !== x.dtype)
      fail("scatter_add", `updates must be ${x.dtype}${fmtShape(want)}, got ${upd.dtype}${fmtShape(upd.shape)}`);
    return x;
  },
  cumsum: (ins, { axis }) => {
    arity("cumsum", ins, 1);
    checkAxes("cumsum", [axis], ins[0]!.shape.length);
    if (!numeric(ins[0]!.dtype)) fail("cumsum", "needs a numeric operand");
    return ins[0]!;
  },
  softmax_cross_entropy: (ins) => {
    arity("softmax_cross_entropy", ins, 2);
    return crossEntropyOperands("softmax_cross_entropy", ins[0]!, ins[1]!);
  },
  softmax: (ins, { axis }) => {
    const x = unaryFloat("softmax")(ins, {});
    if (!Number.isInteger(axis) || axis < 0 || axis >= x.shape.length)
      fail("softmax", `axis ${axis} is out of range for ${fmtShape(x.shape)}`);
    return x;
  },
  softmax_cross_entropy_grad: (ins) => {
    arity("softmax_cross_entropy_grad", ins, 3);
    const perPosition = crossEntropyOperands("softmax_cross_entropy_grad", ins[0]!, ins[1]!);
    if (!sameAVal(perPosition, ins[2]!))
      fail("softmax_cross_entropy_grad", `the cotangent must be ${fmt(perPosition)}, got ${fmt(ins[2]!)}`);
    return ins[0]!;
  },
  all_reduce: (ins) => {
    arity("all_reduce", ins, 1);
    if (!numeric(ins[0]!.dtype)) fail("all_reduce", "needs a numeric operand");
    return ins[0]!;
  },
  scan: scanRule,
};
