// The package's "@kiln-ml/kiln/xla" entry, named one by one: the XLA executor (StableHLO through a PJRT
// plugin), its plugin discovery and lowering, for registering it by hand (`--accelerator`/`selectDevices`
// do it for you).
import "../executors.js";

export {
  createXlaExecutor,
  XlaExecutor,
  discoverPjrtPlugin,
  discoverCpuPlugin,
  lowerToStableHlo,
  PjrtError,
  type XlaExecutorOptions,
  type PjrtPluginFound,
  type LoweredModule,
} from "../exec/xla/index.js";
