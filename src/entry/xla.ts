// The package's "kiln/xla" entry: the XLA executor (StableHLO through a PJRT plugin), its plugin
// discovery and lowering, for registering it by hand (`--accelerator`/`selectDevices` do it for you).
import "../executors.js";

export * from "../exec/xla/index.js";
