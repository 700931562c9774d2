// Small ONNX building blocks for graphs written by hand (the exported models' wrappers): constant tensors and nodes.
import { OnnxType, type NodeDef, type TensorDef } from "./proto.js";

export function int64s(name: string, values: readonly number[], dims: readonly number[] = [values.length]): TensorDef {
  return { name, dataType: OnnxType.INT64, dims, raw: new Uint8Array(BigInt64Array.from(values, BigInt).buffer) };
}

export function int32Scalar(name: string, value: number): TensorDef {
  return { name, dataType: OnnxType.INT32, dims: [], raw: new Uint8Array(Int32Array.of(value).buffer) };
}

export const node = (op: string, inputs: string[], outputs: string[], attrs?: NodeDef["attrs"]): NodeDef => ({
  op,
  inputs,
  outputs,
  attrs,
});
