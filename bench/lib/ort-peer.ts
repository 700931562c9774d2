// The peer in every ONNX Runtime benchmark: the official onnxruntime-node binding's InferenceSession
// on the very model bytes Kiln compiles, with the same thread settings.
import * as ort from "onnxruntime-node";
import type { Program } from "../../src/index.js";
import { OrtExecutor } from "../../src/index.js";
import { lowerProgram, type LoweredProgram } from "../../src/exec/ort/lower-program.js";

export function benchExecutor(threads: number | undefined): OrtExecutor {
  return new OrtExecutor(threads ? { threads } : {});
}

export function lowered(program: Program, executor: OrtExecutor): LoweredProgram {
  return lowerProgram(program, 1, executor.version());
}

export async function peerSession(
  model: Uint8Array,
  threads: number,
  extra: ort.InferenceSession.SessionOptions = {},
): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(model, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
    executionMode: "sequential",
    ...extra,
  });
}

const TENSOR_TYPE: Record<string, ort.Tensor.Type> = {
  f32: "float32",
  f64: "float64",
  i32: "int32",
  u32: "uint32",
  i64: "int64",
  bool: "bool",
};

export function tensor(dtype: string, data: ArrayBufferView, dims: readonly number[]): ort.Tensor {
  const t = TENSOR_TYPE[dtype];
  if (!t) throw new Error(`no onnxruntime-node tensor type for ${dtype}`);
  return new ort.Tensor(t, data as Float32Array, [...dims]);
}
