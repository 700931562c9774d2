export {
  selectDevices,
  loadAcceleratorExecutor,
  CPU_EXECUTORS,
  type Accelerator,
  type CpuExecutorName,
  type DevicesSpec,
  type DeviceSelection,
} from "./devices.js";
export { OneDevice, DataParallel, makeStrategy, type CompiledFn, type Strategy, type StrategyName } from "./strategy.js";
export { PerReplica, replicaView } from "./per-replica.js";
export { replicated, type ReplicatedOptions } from "./replicated.js";
export { allReduceSum, allReduceMean } from "./collectives.js";
