// Workers start under `node --input-type=module -e …`: they inherit the process's options, and Node refuses
// --input-type for a worker's file entry point, so the ONNX Runtime run worker died at start and a
// synchronous read of a result waited for it forever.
import test from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

const entry = JSON.stringify(fileURLToPath(new URL("../../src/index.js", import.meta.url)));

test("a computation read synchronously under node --input-type=module -e finishes", async () => {
  const script = `const k = await import(${entry});
const a = k.array(new Float32Array([3]), { shape: [1] });
console.log(a.mul(a).dataSync()[0]);
process.exit(0);`;
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, ["--input-type=module", "-e", script], { timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    ),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "9");
});
