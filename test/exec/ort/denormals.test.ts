// ONNX Runtime's threads flush denormals on x86-64 Linux (a masked softmax made them in every causal
// training step, at tens of times an operation's cost), and compute IEEE denormals elsewhere. Kiln's JS
// thread keeps IEEE arithmetic, though ONNX Runtime sets the first session's flag on the thread creating it.
import test from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import * as k from "../../../src/index.js";
import { OrtExecutor } from "../../../src/exec/ort/executor.js";
import { ortRuntime } from "../../../src/exec/ort/runtime.js";
import { FLUSH_DENORMALS } from "../../../src/exec/ort/flush-denormals.js";

/** Large enough that every thread of a pool computes a share of the product. */
const N = 1 << 24;
/** 2^-70 · 2^-70 = 2^-140: a denormal in f32. */
const TINY = 2 ** -70;

function productOfTinies(device: k.Device): Float32Array {
  const x = k.array(new Float32Array(N).fill(TINY), { shape: [N], device });
  return k
    .jit((a: k.Array) => a.mul(a), { device })(x)
    .dataSync() as Float32Array;
}

const ieee = Math.fround(TINY * TINY);
const expected = FLUSH_DENORMALS ? 0 : ieee;

test("a product whose result is a denormal is zero on every thread of the shared pool where denormals are flushed", () => {
  assert.ok(ieee > 0 && ieee < 2 ** -126, "the IEEE product is a denormal");
  const out = productOfTinies(k.findDevice("cpu:0"));
  const wrong = out.findIndex((v) => v !== expected);
  assert.equal(wrong, -1, `element ${wrong} is ${out[wrong]}, expected ${expected} (FLUSH_DENORMALS ${FLUSH_DENORMALS})`);
});

test("a session with its own thread pool flushes denormals too", () => {
  const executor = new OrtExecutor({ threads: ortRuntime().sharedThreads + 1 });
  const out = productOfTinies(executor.devices()[0]!);
  const wrong = out.findIndex((v) => v !== expected);
  assert.equal(wrong, -1, `element ${wrong} is ${out[wrong]}, expected ${expected}`);
});

test("the JS thread keeps IEEE denormals after its process's first session asked ONNX Runtime to flush them", async () => {
  const path = (p: string) => JSON.stringify(fileURLToPath(new URL(`../../../src/${p}`, import.meta.url)));
  // The first session of the process has its own pool, so its options carry ONNX Runtime's flag.
  const script = `const k = await import(${path("index.js")});
const { OrtExecutor } = await import(${path("exec/ort/executor.js")});
const { flushesDenormalsOnThisThread } = await import(${path("exec/ort/flush-denormals.js")});
const device = new OrtExecutor({ threads: 3 }).devices()[0];
k.jit((a) => a.mul(a), { device })(k.array(new Float32Array([2]), { shape: [1], device })).dataSync();
const tiny = Number(process.argv[1]);
console.log(JSON.stringify({ flushes: flushesDenormalsOnThisThread(), product: tiny * tiny }));
process.exit(0);`;
  const r = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
    execFile(process.execPath, ["--input-type=module", "-e", script, String(2 ** -530)], (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve({ stdout, stderr }),
    ),
  );
  const out = JSON.parse(r.stdout.trim()) as { flushes: boolean; product: number };
  assert.equal(out.flushes, false);
  assert.equal(out.product, 2 ** -1060, "a double product into the denormal range stays exact on the JS thread");
});
