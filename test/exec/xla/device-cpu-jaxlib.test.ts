// The device suite on an XLA CPU plugin built from a newer XLA (jaxlib 0.11.2's, PJRT C API 0.115,
// from the lammps-jax-pjrt-cpu wheel), loaded as an explicit plugin: newer than Kiln's declarations.
import { discoverPjrtPlugin } from "../../../src/exec/xla/index.js";
import { pythonSkip } from "../../helpers/python.js";
import { jaxlibCpuPluginPath } from "../../helpers/xla-cpu-plugin.js";
import { deviceSuite } from "./device-suite.js";

function jaxlibPlugin() {
  if (pythonSkip) return { skip: pythonSkip };
  const found = discoverPjrtPlugin({ pluginPath: jaxlibCpuPluginPath() });
  if ("notFound" in found) throw new Error(found.notFound);
  return found;
}

deviceSuite({
  plugin: jaxlibPlugin(),
  platform: "cpu",
  apiMinor: 115,
  rejectsUnknownOptions: true,
  runsOnCallerWhenReusing: true,
  casesPerPrim: Number(process.env.KILN_XLA_CASES ?? 12),
});
