// The device suite on an XLA CPU plugin built from a newer XLA (jaxlib 0.11.2's, PJRT C API 0.115,
// from the lammps-jax-pjrt-cpu wheel), loaded as an explicit plugin: newer than Kiln's declarations.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { discoverPjrtPlugin } from "../../../src/exec/xla/index.js";
import { pythonSkip, venvSitePackages } from "../../helpers/python.js";
import { deviceSuite } from "./device-suite.js";

function jaxlibPlugin() {
  if (pythonSkip) return { skip: pythonSkip };
  const dir = join(venvSitePackages(), "lammps_jax_pjrt_cpu");
  const so = readdirSync(dir).find((f) => f.endsWith(".so"));
  if (!so) throw new Error(`no plugin (.so) in ${dir}`);
  const found = discoverPjrtPlugin({ pluginPath: join(dir, so) });
  if ("notFound" in found) throw new Error(found.notFound);
  return found;
}

deviceSuite({
  plugin: jaxlibPlugin(),
  platform: "cpu",
  apiMinor: 115,
  rejectsUnknownOptions: true,
  casesPerPrim: Number(process.env.KILN_XLA_CASES ?? 12),
});
