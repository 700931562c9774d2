// Kiln's package entry: the engine plus the executors this process can use, registered in order of
// preference (the first is the default device: cpu:0, ONNX Runtime).
import { registerExecutor } from "./core/devices.js";
import { ortExecutor } from "./exec/ort/executor.js";
import { refExecutor } from "./exec/ref/executor.js";

registerExecutor(ortExecutor);
registerExecutor(refExecutor);

export * from "./core/index.js";
export { refExecutor, RefExecutor } from "./exec/ref/executor.js";
export { ortExecutor, OrtExecutor, type OrtExecutorOptions } from "./exec/ort/executor.js";
