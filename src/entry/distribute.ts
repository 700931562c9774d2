// The package's "@kiln-ml/kiln/distribute" entry: src/distribute's public API, named one by one (the layer's
// internals stay out), with the CPU and reference executors registered.
import "../executors.js";

export {
  selectDevices,
  makeStrategy,
  OneDevice,
  DataParallel,
  PerReplica,
  replicated,
  allReduceSum,
  allReduceMean,
  type Strategy,
  type StrategyName,
  type Accelerator,
  type DevicesSpec,
  type DeviceSelection,
} from "../distribute/index.js";
