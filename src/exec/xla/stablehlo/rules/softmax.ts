// softmax along an axis, composed from two reductions and elementwise ops that XLA fuses: exp(x − max)
// / Σ exp(x − max), the maximum propagating NaN as the primitive's definition asks. 16-bit floats
// compute in f32 and round once at the end.
import type { AVal } from "../../../../core/ir.js";
import { i64Array } from "../types.js";
import { convert } from "./convert.js";
import { accumulationType, reduce } from "./reduce.js";
import type { LoweringTable } from "./rule.js";

export const SOFTMAX_LOWERINGS: LoweringTable<"softmax"> = {
  softmax: ({ emit }, [input], { axis }, out) => {
    const x = convert(emit, input!, accumulationType(input!.aval.dtype));
    const { shape, dtype } = x.aval;
    const rowAVal: AVal = { shape: shape.filter((_, i) => i !== axis), dtype };
    const rowDims = i64Array(shape.map((_, i) => i).filter((i) => i !== axis));
    const spread = (v: typeof x) => emit.op("stablehlo.broadcast_in_dim", [v], { shape, dtype }, `broadcast_dimensions = ${rowDims}`);
    const max = reduce(emit, x, [axis], "stablehlo.maximum", -Infinity, rowAVal);
    const e = emit.op("stablehlo.exponential", [emit.op("stablehlo.subtract", [x, spread(max)], x.aval)], x.aval);
    const sum = reduce(emit, e, [axis], "stablehlo.add", 0, rowAVal);
    return convert(emit, emit.op("stablehlo.divide", [e, spread(sum)], x.aval), out.dtype);
  },
};
