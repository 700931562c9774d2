// The lowering table: one entry per primitive. It is a Record over every primitive, so the compiler
// refuses a primitive that has no lowering.
import type { Prim } from "../../core/ir.js";
import type { Lowering } from "./lowering-signature.js";
import { ELEMENTWISE_LOWERINGS } from "./lower-elementwise.js";
import { LAYOUT_LOWERINGS } from "./lower-layout.js";
import { CONTRACTION_LOWERINGS } from "./lower-contraction.js";
import { INDEXING_LOWERINGS } from "./lower-indexing.js";
import { CROSS_ENTROPY_LOWERINGS } from "./lower-cross-entropy.js";
import { SOFTMAX_LOWERINGS } from "./lower-softmax.js";
import { lowerScan, type ScanLowering } from "./lower-scan.js";

export const LOWERINGS: { [P in Prim]: P extends "scan" ? ScanLowering : Lowering<P> } = {
  ...ELEMENTWISE_LOWERINGS,
  ...LAYOUT_LOWERINGS,
  ...CONTRACTION_LOWERINGS,
  ...INDEXING_LOWERINGS,
  ...CROSS_ENTROPY_LOWERINGS,
  ...SOFTMAX_LOWERINGS,
  scan: lowerScan,
};
