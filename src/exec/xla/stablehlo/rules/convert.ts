// convert: StableHLO's convert rounds floats to nearest even and wraps integers, as the IR does. Two
// cases need more, because the IR defines what StableHLO leaves to the implementation:
// - to bool: x != 0 (written as a comparison);
// - float to integer: truncate toward zero, saturate at the integer range, NaN → 0.
import type { DType } from "../../../../core/dtype.js";
import { isFloat } from "../../../../core/dtype.js";
import type { FunctionEmitter, Value } from "../emitter.js";
import { compare, select } from "./elementwise.js";
import type { LoweringTable } from "./rule.js";

/** [smallest value, 2^bits of the positive range] of each integer dtype. */
const INT_RANGE: Partial<Record<DType, { min: bigint; limit: bigint }>> = {
  i32: { min: -(2n ** 31n), limit: 2n ** 31n },
  u32: { min: 0n, limit: 2n ** 32n },
  i64: { min: -(2n ** 63n), limit: 2n ** 63n },
};

export function convert(emit: FunctionEmitter, x: Value, to: DType): Value {
  const from = x.aval.dtype,
    shape = x.aval.shape;
  if (from === to) return x;
  if (to === "bool") return compare(emit, "ne", x, emit.splat(from, shape, 0));
  const range = INT_RANGE[to];
  if (!range || !isFloat(from)) return emit.op("stablehlo.convert", [x], { shape, dtype: to });

  // bf16/f16 widen to f32 exactly; then clamp into the largest float range that converts exactly.
  const f = from === "f64" ? "f64" : "f32";
  const wide = convert(emit, x, f);
  const limit = Number(range.limit);
  const largestBelowLimit = limit * (1 - 2 ** (f === "f64" ? -53 : -24));
  const clamped = emit.op(
    "stablehlo.minimum",
    [emit.op("stablehlo.maximum", [wide, emit.splat(f, shape, Number(range.min))], wide.aval), emit.splat(f, shape, largestBelowLimit)],
    wide.aval,
  );
  const truncated = emit.op("stablehlo.convert", [clamped], { shape, dtype: to });
  const overflowed = compare(emit, "ge", wide, emit.splat(f, shape, limit));
  const saturated = select(emit, overflowed, emit.splat(to, shape, range.limit - 1n), truncated);
  const isNan = compare(emit, "ne", wide, wide);
  return select(emit, isNan, emit.splat(to, shape, 0), saturated);
}

export const CONVERT_LOWERINGS: LoweringTable<"convert"> = {
  convert: (cx, [x], { dtype }) => convert(cx.emit, x!, dtype),
};
