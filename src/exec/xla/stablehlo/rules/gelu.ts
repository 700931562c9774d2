// GELU composed from elementwise ops that XLA fuses into one loop: 0.5·x·erfc(−x/√2) = x·Φ(x). 16-bit floats
// compute in f32 and round once at the end, as the primitive's definition asks.
import type { Value } from "../emitter.js";
import { convert } from "./convert.js";
import { accumulationType } from "./reduce.js";
import type { LoweringTable } from "./rule.js";

export const GELU_LOWERINGS: LoweringTable<"gelu"> = {
  gelu: ({ emit }, [input], _p, out) => {
    const x = convert(emit, input!, accumulationType(input!.aval.dtype));
    const c = (n: number) => emit.splat(x.aval.dtype, x.aval.shape, n);
    const op = (name: string, a: Value, b: Value) => emit.op(name, [a, b], x.aval);
    // 1 + erf(x/√2) as erfc(−x/√2): no cancellation where x is very negative (1 + erf came out 6e-8
    // there, so GELU(−550) was −1.6e-5 instead of −0). StableHLO has no erfc; CHLO's is decomposed by
    // XLA's own legalization.
    const erfc = emit.op("chlo.erfc", [op("stablehlo.multiply", x, c(-Math.SQRT1_2))], x.aval);
    const y = op("stablehlo.multiply", op("stablehlo.multiply", x, c(0.5)), erfc);
    return convert(emit, y, out.dtype);
  },
};
