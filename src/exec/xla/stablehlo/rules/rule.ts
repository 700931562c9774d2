// The shape of a lowering rule: IR operands already lowered to SSA values in, the result's value out.
import type { AVal, Prim, PrimParams } from "../../../../core/ir.js";
import type { FunctionEmitter, Value } from "../emitter.js";

export interface LoweringContext {
  readonly emit: FunctionEmitter;
  /** Replicas the module runs on (all_reduce groups all of them). */
  readonly replicas: number;
  /** Float sums over leading axes as a product by ones (see LowerOptions.leadingSumsAsProducts). */
  readonly leadingSumsAsProducts: boolean;
}

export type LoweringRule<P extends Prim> = (cx: LoweringContext, ins: readonly Value[], params: PrimParams[P], out: AVal) => Value;

export type LoweringTable<K extends Prim> = { [P in K]: LoweringRule<P> };
