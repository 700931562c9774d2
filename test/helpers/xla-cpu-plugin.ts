// XLA's CPU plugin for training tests on the XLA executor: the xla-cpu-pjrt wheel of the project's
// Python environment (PJRT C API 0.81), found by discovery. Tests skip with one reason where the
// Python environment is missing, and fail in CI (CI=true) instead.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { discoverCpuPlugin } from "../../src/exec/xla/index.js";
import { pythonSkip, venvSitePackages } from "./python.js";

export const xlaCpuSkip: string | false = pythonSkip;

/** The wheel's plugin path (throws, saying where it looked, when the environment has none). */
export function xlaCpuPluginPath(): string {
  const site = venvSitePackages();
  const found = discoverCpuPlugin([site]);
  if (!found) throw new Error(`the Python environment has no xla-cpu-pjrt plugin (site-packages/xla_plugins/) in ${site}`);
  return found.path;
}

/** Trainer options that run on `devices` XLA CPU devices (a client made with that many). */
export function xlaCpuTrainer(devices: number) {
  return { accelerator: "cpu", executor: "xla", devices, pjrtPlugin: xlaCpuPluginPath() } as const;
}

/** The CPU plugin built from jaxlib 0.11's XLA (the lammps-jax-pjrt-cpu wheel, PJRT C API 0.115), whose bf16 products are native. */
export function jaxlibCpuPluginPath(): string {
  const dir = join(venvSitePackages(), "lammps_jax_pjrt_cpu");
  const so = readdirSync(dir).find((f) => f.endsWith(".so"));
  if (!so) throw new Error(`no plugin (.so) in ${dir}`);
  return join(dir, so);
}
