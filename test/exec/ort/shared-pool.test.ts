// Kiln's ONNX Runtime sessions share one thread pool, the env's. A model ORT refuses must not cost the
// sessions after it that pool; only an env made without one (by onnxruntime-node, first in the process)
// sends sessions to pools of their own. Each case runs in a fresh process, whose threads it counts.
import test from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as k from "../../../src/index.js";
import { ortRuntime } from "../../../src/exec/ort/runtime.js";
import { tempDir } from "../../helpers/temp-dir.js";

const entry = fileURLToPath(new URL("../../../src/index.js", import.meta.url));
const runtimeModule = fileURLToPath(new URL("../../../src/exec/ort/runtime.js", import.meta.url));
const root = tempDir("kiln-shared-pool-");

/** A pool of 4 threads starts 3 of its own: a session with its own pool is seen in the process's thread count. */
const POOL = "4";

/** Runs an ES module script in a fresh Node process; its last stdout line is JSON. */
function runScript(script: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ["--input-type=module", "-e", script],
      { env: { ...process.env, KILN_CPU_THREADS: POOL } },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout.trim().split("\n").at(-1)!)),
    ),
  );
}

/** Script text: the process's thread count, and two products that compile two sessions. */
const helpers = `
import { readFileSync } from "node:fs";
const threads = () => Number(/Threads:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]);
const product = (k, n) => {
  const a = k.array(Float32Array.from({ length: n * n }, (_, i) => i % 7), { shape: [n, n] });
  return Array.from(k.jit((x) => x.matmul(x))(a).dataSync()).slice(0, 3);
};`;

test(
  "a model ONNX Runtime refuses is reported, and later sessions still share the env's pool",
  { skip: process.platform !== "linux" && "counts threads in /proc" },
  async () => {
    const out = await runScript(`${helpers}
const k = await import(${JSON.stringify(entry)});
const { ortRuntime } = await import(${JSON.stringify(runtimeModule)});
product(k, 3);
const before = threads();
let refused = "";
try { ortRuntime().createSession(new Uint8Array([8, 1, 2, 3]), ortRuntime().sharedThreads); } catch (e) { refused = e.message; }
const values = product(k, 5);
console.log(JSON.stringify({ before, after: threads(), refused, values }));`);
    assert.match(String(out.refused), /CreateSessionFromArray/, "the refusal is ONNX Runtime's own");
    assert.equal(out.after, out.before, "the session compiled after the refusal started no threads of its own");
    assert.deepEqual(out.values, [38, 20, 23]);
  },
);

test(
  "after onnxruntime-node made ONNX Runtime's env, Kiln's sessions bring their own pools and compute",
  { skip: process.platform !== "linux" && "counts threads in /proc" },
  async () => {
    // An ONNX model Kiln lowers (a plain MatMul), for onnxruntime-node to load first in the fresh process.
    const rt = ortRuntime();
    const create = rt.createSession;
    let model: Uint8Array | undefined;
    rt.createSession = (bytes, threads, extra) => ((model ??= bytes.slice()), create.call(rt, bytes, threads, extra));
    try {
      const a = k.array(
        Float32Array.from({ length: 6 }, (_, i) => i),
        { shape: [2, 3] },
      );
      k.jit((x: k.Array) => x.matmul(x.transpose([1, 0])))(a).dataSync();
    } finally {
      rt.createSession = create;
    }
    assert.ok(model, "the product compiled a session");
    const file = join(root, "matmul.onnx");
    writeFileSync(file, model);
    const out = await runScript(`${helpers}
const ort = await import("onnxruntime-node");
await ort.InferenceSession.create(${JSON.stringify(file)});
const k = await import(${JSON.stringify(entry)});
const before = threads();
const values = product(k, 5);
console.log(JSON.stringify({ before, after: threads(), values }));`);
    assert.deepEqual(out.values, [38, 20, 23]);
    assert.ok(Number(out.after) >= Number(out.before) + Number(POOL) - 1, `a pool of its own: ${out.before} → ${out.after} threads`);
  },
);
