// Section 1 of the device check: the PJRT plugin for --platform as a user's run would load it (discovery,
// or KILN_PJRT_PLUGIN; for gpu the CUDA defaults: preallocate, 75% of memory) and what it says of itself:
// path, how it was found, the libraries preloaded, PJRT C API version, xla_version and StableHLO versions,
// platform and version, devices, and each device's allocator figures (PJRT_Device_MemoryStats; XLA's CPU
// plugins keep none). Prints one JSON object.
//
//   node dist/bench/device/devices.js --platform gpu|cpu
import { parseArgs } from "node:util";
import { discoverCpuPlugin, discoverPjrtPlugin, XlaExecutor } from "../../src/exec/xla/index.js";
import { checkPlatform, memoryFigures } from "./platform.js";

const { values: v } = parseArgs({ options: { platform: { type: "string" } } });
const platform = checkPlatform(v.platform);
const named = process.env.KILN_PJRT_PLUGIN;
const found =
  platform === "gpu" || named
    ? discoverPjrtPlugin()
    : (discoverCpuPlugin() ?? { notFound: "no XLA CPU plugin (the xla-cpu-pjrt wheel) found" });
if ("notFound" in found) throw new Error(`no ${platform} PJRT plugin: ${found.notFound}`);
const started = performance.now();
const x = new XlaExecutor(found, platform === "cpu" ? { cpuDeviceCount: 1 } : {});
const clientSeconds = (performance.now() - started) / 1000;
try {
  const attr = (name: string) => {
    const a = x.pluginAttributes().get(name);
    return Array.isArray(a) ? a.join(".") : a === undefined ? null : String(a);
  };
  const gib = (b: number | undefined) => (b === undefined ? null : Number((b / 2 ** 30).toFixed(2)));
  console.log(
    JSON.stringify({
      plugin: found.path,
      found_as: found.kind,
      preloaded_libraries: found.preload.length,
      pjrt_api: `${x.apiVersion.major}.${x.apiVersion.minor}`,
      xla_version: attr("xla_version"),
      stablehlo: attr("stablehlo_current_version"),
      stablehlo_minimum: attr("stablehlo_minimum_version"),
      platform: x.platform,
      client_seconds: Number(clientSeconds.toFixed(2)),
      devices: x.devices().map((d) => {
        const { stats: m, unavailable } = memoryFigures(x, d);
        return {
          id: d.id,
          kind: (d as { pjrt?: { kind: string } }).pjrt?.kind ?? null,
          memory_limit_gib: gib(m?.bytesLimit),
          memory_in_use_gib: gib(m?.bytesInUse),
          memory_stats: unavailable ?? "PJRT_Device_MemoryStats",
        };
      }),
    }),
  );
} finally {
  x.close();
}
