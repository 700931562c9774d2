// iota, take (gather) and scatter_add (scatter with an add region). Indices are one integer per
// position (index_vector_dim = rank of the indices). Gather clamps start indices into range, which is
// the IR's rule; scatter skips out-of-range updates instead, so its indices are clamped first.
import type { AVal } from "../../../../core/ir.js";
import type { FunctionEmitter, Value } from "../emitter.js";
import { i64Array } from "../types.js";
import { accumulationType } from "./reduce.js";
import { convert } from "./convert.js";
import type { LoweringTable } from "./rule.js";

/** Output positions of the operand's dims other than `axis` once the indices' dims replace it. */
function windowDims(operandRank: number, axis: number, indexRank: number): number[] {
  const pre = Array.from({ length: axis }, (_, i) => i);
  const post = Array.from({ length: operandRank - axis - 1 }, (_, i) => axis + indexRank + i);
  return [...pre, ...post];
}

function field(name: string, xs: readonly number[]): string[] {
  return xs.length ? [`${name} = [${xs.join(", ")}]`] : [];
}

export function clampIndices(emit: FunctionEmitter, idx: Value, n: number): Value {
  const { shape, dtype } = idx.aval;
  const nonNegative = dtype === "u32" ? idx : emit.op("stablehlo.maximum", [idx, emit.splat(dtype, shape, 0)], idx.aval);
  return emit.op("stablehlo.minimum", [nonNegative, emit.splat(dtype, shape, n - 1)], idx.aval);
}

export const INDEXING_LOWERINGS: LoweringTable<"iota" | "take" | "scatter_add"> = {
  iota: (cx, _ins, { dim }, out) => cx.emit.op("stablehlo.iota", [], out, `iota_dimension = ${dim} : i64`),
  take: (cx, [x, idx], { axis }, out) => {
    const rank = x!.aval.shape.length,
      indexRank = idx!.aval.shape.length;
    const numbers = [
      ...field("offset_dims", windowDims(rank, axis, indexRank)),
      `collapsed_slice_dims = [${axis}]`,
      `start_index_map = [${axis}]`,
      `index_vector_dim = ${indexRank}`,
    ];
    const sliceSizes = x!.aval.shape.map((d, i) => (i === axis ? 1 : d));
    return cx.emit.op(
      "stablehlo.gather",
      [x!, idx!],
      out,
      `dimension_numbers = #stablehlo.gather<${numbers.join(", ")}>, slice_sizes = ${i64Array(sliceSizes)}, indices_are_sorted = false`,
    );
  },
  scatter_add: (cx, [x, idx, upd], { axis }, out) => {
    const rank = x!.aval.shape.length,
      indexRank = idx!.aval.shape.length;
    const acc = accumulationType(out.dtype);
    const numbers = [
      ...field("update_window_dims", windowDims(rank, axis, indexRank)),
      `inserted_window_dims = [${axis}]`,
      `scatter_dims_to_operand_dims = [${axis}]`,
      `index_vector_dim = ${indexRank}`,
    ];
    const accOut: AVal = { shape: out.shape, dtype: acc };
    const sum = cx.emit.opWithRegion(
      "stablehlo.scatter",
      [convert(cx.emit, x!, acc), clampIndices(cx.emit, idx!, x!.aval.shape[axis]!), convert(cx.emit, upd!, acc)],
      accOut,
      { combiner: "stablehlo.add", dtype: acc },
      `scatter_dimension_numbers = #stablehlo.scatter<${numbers.join(", ")}>, indices_are_sorted = false, unique_indices = false`,
    );
    return convert(cx.emit, sum, out.dtype);
  },
};
