// The device suite on the accelerator's PJRT plugin (--pjrt-plugin's KILN_PJRT_PLUGIN, a jax-cuda*-pjrt
// wheel, or libtpu), where there is one: a machine with a GPU or TPU. XLA's CPU plugins have their own
// files (device-cpu-wheel, device-cpu-jaxlib), which run everywhere; without an accelerator this file
// is one skipped test saying what was looked for.
import test from "node:test";
import { discoverPjrtPlugin } from "../../../src/exec/xla/index.js";
import { deviceSuite } from "./device-suite.js";

const found = discoverPjrtPlugin();
if ("notFound" in found) {
  test("the device suite on a GPU/TPU PJRT plugin", { skip: `no GPU/TPU PJRT plugin: ${found.notFound}` }, () => {});
} else {
  const platform = found.kind === "cuda" ? "gpu" : found.kind === "tpu" ? "tpu" : undefined;
  deviceSuite({ plugin: found, ...(platform ? { platform } : {}), casesPerPrim: 6 });
}
