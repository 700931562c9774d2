// The XLA device the device check's programs run on: the first GPU through the CUDA plugin discovery finds
// (or KILN_PJRT_PLUGIN names), or, for the check's CPU run, XLA's CPU plugin with one device. The GPU client
// allocates as it goes instead of taking 75% of the memory up front, so that the contenders of a throughput
// round (other processes on the same GPU) fit beside it.
import * as k from "../../src/core/index.js";
import { discoverCpuPlugin, discoverPjrtPlugin, XlaExecutor, type PjrtMemoryStats } from "../../src/exec/xla/index.js";

export type CheckPlatform = "gpu" | "cpu";

export function checkPlatform(value: string | undefined): CheckPlatform {
  if (value !== "gpu" && value !== "cpu") throw new Error(`--platform must be gpu or cpu, got "${value}"`);
  return value;
}

/** Loads the platform's plugin, registers its executor and returns its first device. */
export function xlaDevice(platform: CheckPlatform): { device: k.Device; executor: XlaExecutor } {
  const named = process.env.KILN_PJRT_PLUGIN;
  const found =
    platform === "gpu"
      ? discoverPjrtPlugin()
      : named
        ? discoverPjrtPlugin({ pluginPath: named })
        : (discoverCpuPlugin() ?? { notFound: "no XLA CPU plugin (the xla-cpu-pjrt wheel) in python3's or the project's site-packages" });
  if ("notFound" in found) throw new Error(`no ${platform === "gpu" ? "GPU" : "XLA CPU"} PJRT plugin: ${found.notFound}`);
  const executor = new XlaExecutor(found, platform === "gpu" ? { clientOptions: { preallocate: false } } : { cpuDeviceCount: 1 });
  if (executor.platform !== platform) {
    executor.close();
    throw new Error(`${found.path} is a ${executor.platform} plugin, not a ${platform} one`);
  }
  k.registerExecutor(executor);
  return { device: executor.devices()[0]!, executor };
}

/**
 * The device's allocator figures for the report; a plugin that refuses the call (an argument struct of
 * another PJRT version) gives its message instead of ending the measurement.
 */
export function memoryFigures(executor: XlaExecutor, device: k.Device): { stats?: PjrtMemoryStats; unavailable?: string } {
  try {
    const stats = executor.memoryStats(device);
    return stats ? { stats } : { unavailable: "not kept by this plugin" };
  } catch (e) {
    return { unavailable: (e as Error).message };
  }
}
