// Shape and layout primitives: one StableHLO op each.
import { i64Array } from "../types.js";
import type { LoweringTable } from "./rule.js";

export const LAYOUT_LOWERINGS: LoweringTable<"broadcast_in_dim" | "reshape" | "transpose" | "slice" | "concatenate" | "pad"> = {
  broadcast_in_dim: (cx, [x], { dims }, out) =>
    cx.emit.op("stablehlo.broadcast_in_dim", [x!], out, `broadcast_dimensions = ${i64Array(dims)}`),
  reshape: (cx, [x], _p, out) => cx.emit.op("stablehlo.reshape", [x!], out),
  transpose: (cx, [x], { perm }, out) => cx.emit.op("stablehlo.transpose", [x!], out, `permutation = ${i64Array(perm)}`),
  slice: (cx, [x], { start, limit }, out) =>
    cx.emit.op(
      "stablehlo.slice",
      [x!],
      out,
      `start_indices = ${i64Array(start)}, limit_indices = ${i64Array(limit)}, strides = ${i64Array(start.map(() => 1))}`,
    ),
  concatenate: (cx, ins, { axis }, out) => cx.emit.op("stablehlo.concatenate", ins, out, `dimension = ${axis} : i64`),
  pad: (cx, [x], { low, high, value }, out) => {
    const fill = cx.emit.splat(x!.aval.dtype, [], value);
    return cx.emit.op(
      "stablehlo.pad",
      [x!, fill],
      out,
      `edge_padding_low = ${i64Array(low)}, edge_padding_high = ${i64Array(high)}, interior_padding = ${i64Array(low.map(() => 0))}`,
    );
  },
};
