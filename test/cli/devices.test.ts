// `kiln devices` lists the executors: the CPU one first, with ONNX Runtime's version (from its C API)
// and the thread and device counts that the environment sets; then the PJRT plugins, loaded for real
// from the project's Python environment (XLA's CPU wheel, and a newer plugin named explicitly).
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { pythonSkip, venvSitePackages } from "../helpers/python.js";
import { jaxlibCpuPluginPath } from "../helpers/xla-cpu-plugin.js";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const main = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const ortVersion = (createRequire(import.meta.url)("onnxruntime-node/package.json") as { version: string }).version;

test("kiln devices shows the CPU executor's version, threads and devices, then the reference", () => {
  const out = execFileSync(process.execPath, [main, "devices"], {
    env: { ...process.env, KILN_CPU_THREADS: "3", KILN_CPU_DEVICES: "2" },
    encoding: "utf8",
  });
  const lines = out.trim().split("\n");
  // The library is the copy in the package's vendor/ (scripts/vendor-onnxruntime.mjs), not onnxruntime-node's.
  const library = fileURLToPath(new URL(`../../../vendor/onnxruntime/${process.platform}-${process.arch}/`, import.meta.url));
  const file = process.platform === "darwin" ? "libonnxruntime.1.dylib" : "libonnxruntime.so.1";
  assert.equal(lines[0], `ort: ONNX Runtime ${ortVersion} (CPU execution provider; ${library}${file}), 3 threads, 2 devices`);
  assert.equal(lines[1], "  devices: cpu:0, cpu:1");
  assert.match(lines[2]!, /^ref: reference interpreter/);
});

test("a bad thread count is refused with the variable's name", () => {
  assert.throws(
    () =>
      execFileSync(process.execPath, [main, "devices"], {
        env: { ...process.env, KILN_CPU_THREADS: "two" },
        encoding: "utf8",
        stdio: "pipe",
      }),
    /KILN_CPU_THREADS must be a positive integer/,
  );
});

const cpuWheel = () => join(venvSitePackages(), "xla_plugins", "xla_cpu_pjrt", "xla_cpu_pjrt.so");
const jaxlibPlugin = jaxlibCpuPluginPath;

/** The lines describing one PJRT plugin (from its "xla: " line to the next unindented one). */
function pluginBlock(out: string, path: string): string {
  const lines = out.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`xla: XLA through the PJRT plugin ${path} `));
  assert.ok(start >= 0, `no block for ${path} in:\n${out}`);
  const end = lines.findIndex((l, i) => i > start && !l.startsWith("  "));
  return lines.slice(start, end).join("\n");
}

test("kiln devices finds XLA's CPU wheel and lists its devices, PJRT API version, attributes and platform", { skip: pythonSkip }, () => {
  const env = { ...process.env };
  delete env.KILN_PJRT_PLUGIN;
  const out = execFileSync(process.execPath, [main, "devices"], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const block = pluginBlock(out, cpuWheel());
  assert.match(
    block,
    /\(cpu; Kiln's PJRT declarations: API 0\.\d+\)\n  PJRT C API 0\.81, xla_version \d+, StableHLO \d+\.\d+\.\d+ \(accepts from /,
  );
  assert.match(block, /\n  platform cpu \(version \S+\)\n  xla-cpu:0: cpu \(PJRT device id 0\)\n  xla-cpu:1: /);
  // A CPU plugin is not an accelerator.
  assert.match(out.trim().split("\n").at(-1)!, /^GPU\/TPU plugin: none: no --pjrt-plugin given and KILN_PJRT_PLUGIN is not set/);
});

test(
  "kiln devices loads the plugin --pjrt-plugin or KILN_PJRT_PLUGIN names, warning once that its API is newer",
  { skip: pythonSkip },
  () => {
    for (const how of ["flag", "env"] as const) {
      const r = spawnSync(process.execPath, [main, "devices", ...(how === "flag" ? ["--pjrt-plugin", jaxlibPlugin()] : [])], {
        env: { ...process.env, ...(how === "env" ? { KILN_PJRT_PLUGIN: jaxlibPlugin() } : {}) },
        encoding: "utf8",
      });
      assert.equal(r.status, 0, r.stderr);
      const block = pluginBlock(r.stdout, jaxlibPlugin());
      assert.match(block, /\(explicit; Kiln's PJRT declarations: API 0\.(\d+)\)\n  PJRT C API 0\.115, xla_version \d+, StableHLO /);
      assert.match(block, /\n  platform cpu \(version \S+\)\n  xla-cpu:0: cpu/);
      // The wheel is listed too, and neither is taken for an accelerator.
      pluginBlock(r.stdout, cpuWheel());
      assert.match(r.stdout.trim().split("\n").at(-1)!, new RegExp(`^GPU/TPU plugin: none \\(${jaxlibPlugin()} is a CPU plugin\\)$`));
      const warnings = r.stderr.split("\n").filter((l) => l.startsWith("kiln: the PJRT plugin"));
      assert.equal(warnings.length, 1, r.stderr);
      assert.match(warnings[0]!, /implements PJRT C API 0\.115; Kiln declares the structs of 0\.113/);
    }
  },
);

test("a reader that closes the pipe first ends kiln devices quietly, with status 0", () => {
  // `true` exits before Node has loaded Kiln, so every write of the command meets a closed pipe (EPIPE).
  const r = spawnSync("bash", ["-c", `set -o pipefail; "${process.execPath}" "${main}" devices | true`], { encoding: "utf8" });
  assert.equal(r.stderr, "");
  assert.equal(r.status, 0);
});
