// Process-wide ONNX Runtime state, created on first use: the library binding, the one OrtEnv of the
// process, a CPU memory description, the run worker and the tensor memory pool. Importing Kiln does not
// load the library; the first array or program on a CPU device does.
import { ortApi, type OrtApi, type Ptr } from "./ort-api.js";
import { RunQueue } from "./run-queue.js";
import { MemoryPool } from "./memory-pool.js";

export interface OrtRuntime {
  readonly api: OrtApi;
  readonly env: Ptr;
  readonly memoryInfo: Ptr;
  readonly queue: RunQueue;
  readonly pool: MemoryPool;
}

let runtime: OrtRuntime | undefined;

export function ortRuntime(): OrtRuntime {
  if (!runtime) {
    const api = ortApi();
    const queue = new RunQueue();
    runtime = { api, env: api.createEnv(), memoryInfo: api.cpuMemoryInfo(), queue, pool: new MemoryPool(queue) };
  }
  return runtime;
}
