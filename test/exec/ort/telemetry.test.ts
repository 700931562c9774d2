// ONNX Runtime's official builds start a telemetry uploader when a process creates its env, which writes
// /tmp/mat-debug-PID.log. Kiln turns it off unless the user set ORT_DISABLE_TELEMETRY (0 keeps it on).
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = fileURLToPath(new URL("../../../src/index.js", import.meta.url));
const script = `const k = await import(${JSON.stringify(entry)});
const a = k.array(new Float32Array([1, 2, 3, 4]), { shape: [2, 2] });
const product = Array.from(k.jit((x) => x.matmul(x))(a).dataSync());
console.log(JSON.stringify({ product, variable: process.env.ORT_DISABLE_TELEMETRY }));`;

/**
 * Runs a product on ONNX Runtime in a fresh process: its output, and whether the uploader's log for its pid
 * exists. The process runs without CI, as a user's shell does: the uploader stays off by itself where CI is set.
 */
function run(given: NodeJS.ProcessEnv): Promise<{ out: { product: number[]; variable?: string }; log: boolean }> {
  const env = { ...given };
  delete env.CI;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "",
      stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => {
      const log = `/tmp/mat-debug-${child.pid}.log`;
      const made = existsSync(log);
      rmSync(log, { force: true });
      if (code !== 0) return reject(new Error(`exit ${code}: ${stderr}`));
      resolve({ out: JSON.parse(stdout.trim().split("\n").at(-1)!), log: made });
    });
  });
}

const linux = process.platform === "linux" ? false : "the uploader's log path is Linux's";

test("computing on ONNX Runtime leaves no telemetry log: Kiln turns the uploader off", { skip: linux }, async () => {
  const env = { ...process.env };
  delete env.ORT_DISABLE_TELEMETRY;
  const r = await run(env);
  assert.deepEqual(r.out.product, [7, 10, 15, 22]);
  assert.equal(r.out.variable, "1", "the setting reaches ONNX Runtime (and the processes Kiln starts)");
  assert.equal(r.log, false, "no /tmp/mat-debug-PID.log");
});

test("ORT_DISABLE_TELEMETRY=0 leaves ONNX Runtime's telemetry as its build has it", { skip: linux }, async () => {
  const r = await run({ ...process.env, ORT_DISABLE_TELEMETRY: "0" });
  assert.deepEqual(r.out.product, [7, 10, 15, 22]);
  assert.equal(r.out.variable, "0");
  // The vendored build (onnxruntime-node 1.30) writes its log: the first test's check can see one.
  assert.equal(r.log, true, "the build's uploader wrote /tmp/mat-debug-PID.log");
});
