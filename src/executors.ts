// Registers the executors every process can use, in order of preference (the first is the default
// device: cpu:0, ONNX Runtime), ONNX Runtime's with the discovery that loads its library. Imported for
// its effect by the package entry and by each subpath entry that computes, so `import { Trainer } from
// "@kiln-ml/kiln/train"` works on its own. Registering twice is a no-op.
import { registerExecutor } from "./core/executor-registry.js";
import { discoverOnnxRuntime, ortExecutor } from "./exec/ort/executor.js";
import { refExecutor } from "./exec/ref/executor.js";

registerExecutor(ortExecutor, discoverOnnxRuntime);
registerExecutor(refExecutor);

export { refExecutor, RefExecutor } from "./exec/ref/executor.js";
export { ortExecutor, OrtExecutor, type OrtExecutorOptions } from "./exec/ort/executor.js";
