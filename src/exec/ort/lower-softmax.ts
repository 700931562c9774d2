// softmax along an axis → one ONNX Softmax (opset 13 normalizes along the one axis given); 16-bit
// floats compute in f32 and round once at the end.
import { computeDtype } from "./graph-builder.js";
import type { Lowering } from "./lowering-signature.js";

const softmax: Lowering<"softmax"> = (g, [x], { axis }, out) => {
  const v = g.materialize(g.cast(x!, computeDtype(x!.dtype)));
  const name = g.node("Softmax", [v.name], { axis: { kind: "int", value: axis } });
  return g.cast({ ...v, name }, out.dtype);
};

export const SOFTMAX_LOWERINGS = { softmax };
