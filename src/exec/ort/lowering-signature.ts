// The shape of one primitive's lowering: IR operands (as graph values) in, one graph value out.
import type { AVal, Prim, PrimParams } from "../../core/ir.js";
import type { GraphBuilder, Val } from "./graph-builder.js";

/**
 * Lowers one equation. The result must stand for `out` exactly (`full` equal to its shape, same
 * dtype); its ONNX shape may keep broadcast dimensions at size 1. `replicas` is the operand on every
 * replica, for collectives.
 */
export type Lowering<P extends Prim> = (
  g: GraphBuilder,
  ins: readonly Val[],
  params: PrimParams[P],
  out: AVal,
  replicas?: readonly Val[],
) => Val;
