// The device suite on the accelerator's PJRT plugin (--pjrt-plugin's KILN_PJRT_PLUGIN, a jax-cuda*-pjrt
// wheel, or libtpu), where there is one: a machine with a GPU or TPU. XLA's CPU plugins have their own
// files (device-cpu-wheel, device-cpu-jaxlib), which run everywhere.
import { discoverPjrtPlugin } from "../../../src/exec/xla/index.js";
import { deviceSuite } from "./device-suite.js";

const found = discoverPjrtPlugin();
const platform = "notFound" in found ? undefined : found.kind === "cuda" ? "gpu" : found.kind === "tpu" ? "tpu" : undefined;
deviceSuite({
  plugin: "notFound" in found ? { skip: `no GPU/TPU PJRT plugin: ${found.notFound}` } : found,
  ...(platform ? { platform } : {}),
  casesPerPrim: 6,
});
