// all_reduce: a sum over every replica of the module (one replica group holding them all).
import type { LoweringTable } from "./rule.js";

export const COLLECTIVE_LOWERINGS: LoweringTable<"all_reduce"> = {
  all_reduce: (cx, [x], _p, out) => {
    const group = Array.from({ length: cx.replicas }, (_, i) => i).join(", ");
    return cx.emit.opWithRegion(
      "stablehlo.all_reduce",
      [x!],
      out,
      { combiner: "stablehlo.add", dtype: out.dtype },
      `replica_groups = dense<[[${group}]]> : tensor<1x${cx.replicas}xi64>`,
    );
  },
};
