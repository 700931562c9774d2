// `kiln devices` lists the executors: the CPU one first, with ONNX Runtime's version (from its C API)
// and the thread and device counts that the environment sets.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
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
  assert.equal(lines[0], `ort: ONNX Runtime ${ortVersion} (CPU execution provider), 3 threads, 2 devices`);
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
