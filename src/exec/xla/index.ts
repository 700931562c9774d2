// The XLA executor's public surface: plugin discovery, the executor, and the StableHLO lowering.
export { discoverCpuPlugin, discoverPjrtPlugin, defaultSitePackages, nvidiaLibraries } from "./discovery.js";
export type { DiscoveryOptions, PjrtPluginFound, PjrtPluginKind, PjrtPluginNotFound } from "./discovery.js";
export { createXlaExecutor, XlaExecutor, type XlaClientOptions, type XlaExecutorOptions } from "./executor.js";
export { lowerToStableHlo, type LowerOptions, type LoweredModule } from "./stablehlo/lower.js";
export { compileOptionsProto, type CompileTarget } from "./proto/compile-options.js";
export { cpuDotLibrary, CPU_DOT_LIBRARIES, type CpuDotLibrary } from "./cpu-dot-library.js";
export { PjrtError } from "./pjrt/errors.js";
export type { ClientOptionValue } from "./pjrt/named-values.js";
export type { DistributedOptions } from "./distributed/options.js";
export type { PjrtMemoryStats } from "./pjrt/client.js";
export type { XlaBuffer } from "./buffer.js";
export type { XlaExecutable } from "./executable.js";
