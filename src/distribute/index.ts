export { selectDevices, loadAcceleratorExecutor, type Accelerator, type DevicesSpec, type DeviceSelection } from "./devices.js";
export { OneDevice, DataParallel, makeStrategy, type Strategy, type StrategyName } from "./strategy.js";
export { PerReplica, replicaView } from "./per-replica.js";
export { replicated, type ReplicatedOptions } from "./replicated.js";
