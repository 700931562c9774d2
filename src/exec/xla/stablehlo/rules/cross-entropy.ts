// Softmax cross-entropy over the last axis, composed from reductions and elementwise ops that XLA fuses
// into a few loops over the logits: the label's logit is picked by comparing against an iota (no
// gather or scatter). 16-bit floats compute in f32 and round once at the end.
import type { AVal } from "../../../../core/ir.js";
import type { FunctionEmitter, Value } from "../emitter.js";
import { i64Array } from "../types.js";
import { convert } from "./convert.js";
import { compare, select } from "./elementwise.js";
import { clampIndices } from "./indexing.js";
import { accumulationType, reduce } from "./reduce.js";
import type { LoweringTable } from "./rule.js";

interface Rows {
  /** The logits in the accumulation dtype. */
  readonly x: Value;
  /** log Σ exp over the class axis, per row (shifted by the row's max when it is finite). */
  readonly lse: Value;
  /** True at each row's (clamped) label. */
  readonly hit: Value;
  /** A per-row value broadcast along the class axis. */
  readonly spread: (v: Value) => Value;
}

function rows(emit: FunctionEmitter, logits: Value, labels: Value): Rows {
  const acc = accumulationType(logits.aval.dtype);
  const x = convert(emit, logits, acc);
  const shape = x.aval.shape,
    axis = shape.length - 1;
  const rowAVal: AVal = { shape: shape.slice(0, -1), dtype: acc };
  const rowDims = i64Array(rowAVal.shape.map((_, i) => i));
  const spread = (v: Value) =>
    emit.op("stablehlo.broadcast_in_dim", [v], { shape, dtype: v.aval.dtype }, `broadcast_dimensions = ${rowDims}`);
  const max = reduce(emit, x, [axis], "stablehlo.maximum", -Infinity, rowAVal);
  const finite = emit.op("stablehlo.is_finite", [max], { shape: rowAVal.shape, dtype: "bool" });
  const shift = select(emit, finite, max, emit.splat(acc, rowAVal.shape, 0));
  const e = emit.op("stablehlo.exponential", [emit.op("stablehlo.subtract", [x, spread(shift)], x.aval)], x.aval);
  const sum = reduce(emit, e, [axis], "stablehlo.add", 0, rowAVal);
  const lse = emit.op("stablehlo.add", [emit.op("stablehlo.log", [sum], rowAVal), shift], rowAVal);
  const label = spread(clampIndices(emit, labels, shape[axis]!));
  const classes = emit.op("stablehlo.iota", [], label.aval, `iota_dimension = ${axis} : i64`);
  return { x, lse, hit: compare(emit, "eq", classes, label), spread };
}

export const CROSS_ENTROPY_LOWERINGS: LoweringTable<"softmax_cross_entropy" | "softmax_cross_entropy_grad"> = {
  softmax_cross_entropy: ({ emit }, [logits, labels], _p, out) => {
    const { x, lse, hit } = rows(emit, logits!, labels!);
    const axis = x.aval.shape.length - 1;
    const masked = select(emit, hit, x, emit.splat(x.aval.dtype, x.aval.shape, 0));
    const picked = reduce(emit, masked, [axis], "stablehlo.add", 0, lse.aval);
    return convert(emit, emit.op("stablehlo.subtract", [lse, picked], lse.aval), out.dtype);
  },
  softmax_cross_entropy_grad: ({ emit }, [logits, labels, ct], _p, out) => {
    const { x, lse, hit, spread } = rows(emit, logits!, labels!);
    const { shape, dtype } = x.aval;
    const probs = emit.op("stablehlo.exponential", [emit.op("stablehlo.subtract", [x, spread(lse)], x.aval)], x.aval);
    const onehot = select(emit, hit, emit.splat(dtype, shape, 1), emit.splat(dtype, shape, 0));
    const g = spread(convert(emit, ct!, dtype));
    const grad = emit.op("stablehlo.multiply", [emit.op("stablehlo.subtract", [probs, onehot], x.aval), g], x.aval);
    return convert(emit, grad, out.dtype);
  },
};
