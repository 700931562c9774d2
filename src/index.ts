// Kiln's package entry: the engine plus the executors this process can use, registered in order of
// preference (the first is the default device).
import { registerExecutor } from "./core/devices.js";
import { refExecutor } from "./exec/ref/executor.js";

registerExecutor(refExecutor);

export * from "./core/index.js";
export { refExecutor, RefExecutor } from "./exec/ref/executor.js";
