// The device suite on XLA's CPU plugin from OpenXLA's xla-cpu-pjrt wheel (PJRT C API 0.81), found by
// discovery in the project's Python environment.
import { discoverPjrtPlugin } from "../../../src/exec/xla/index.js";
import { pythonSkip, venvSitePackages } from "../../helpers/python.js";
import { deviceSuite } from "./device-suite.js";

function wheelPlugin() {
  if (pythonSkip) return { skip: pythonSkip };
  const found = discoverPjrtPlugin({ env: {}, sitePackages: [venvSitePackages()], includeCpu: true });
  if ("notFound" in found) throw new Error(`the Python environment has no xla-cpu-pjrt plugin: ${found.notFound}`);
  return found;
}

deviceSuite({
  plugin: wheelPlugin(),
  platform: "cpu",
  apiMinor: 81,
  rejectsUnknownOptions: false,
  runsOnCallerWhenReusing: false,
  casesPerPrim: Number(process.env.KILN_XLA_CASES ?? 12),
});
