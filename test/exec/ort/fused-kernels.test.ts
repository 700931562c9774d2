// Chains a session's graph computes in one ONNX Runtime kernel: an RMS norm (with or without its weight)
// is one SimplifiedLayerNormalization, an argmax one TopK of 1; each gives the reference interpreter's
// values, NaN and tied rows included. A chain that only resembles one keeps the composed ops.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { refExecutor, ortExecutor, type Program } from "../../../src/index.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import { rmsNorm } from "../../../src/nn/layers.js";
import { rng } from "../../helpers/random.js";
import { assertOrtMatchesReference, run } from "./compare.js";

const device = refExecutor.devices()[0];
const random = (r: () => number, n: number, scale = 1) => Float32Array.from({ length: n }, () => (r() * 2 - 1) * scale);
const sessionOps = (p: Program) => lowerGraph(p, 1, { relayOutConstants: true }).graph.nodes.map((n) => n.op);

test("RMS norm with its weight, and without: one SimplifiedLayerNormalization each, the reference's values", async () => {
  const r = rng(5);
  const width = 24;
  const weight = k.array(random(r, width), { shape: [width], device });
  const f = (w: k.Array, x: k.Array) => [rmsNorm(w, x, 1e-5), x.mul(k.rsqrt(x.mul(x).mean(-1, { keepDims: true }).add(1e-6)))];
  const zeros = k.zeros([3, 2, width]);
  const program = k.jit(f, { name: "rms_norm", device }).lower(k.zeros([width]), zeros);
  const ops = sessionOps(program);
  assert.deepEqual(ops, ["SimplifiedLayerNormalization", "SimplifiedLayerNormalization"], ops.join(", "));
  await assertOrtMatchesReference(program, [random(r, width), random(r, 3 * 2 * width, 3)]);
  // The weight as a constant (generation compiles its weights in).
  const closed = k.jit((x: k.Array) => rmsNorm(weight, x, 1e-5), { name: "rms_norm_const", device }).lower(zeros);
  assert.deepEqual(sessionOps(closed), ["SimplifiedLayerNormalization"]);
  await assertOrtMatchesReference(closed, [random(r, 3 * 2 * width, 3)]);
});

test("argmax over the last axis: one TopK of 1, the reference's indices (first of tied maxima, n for a row with NaN)", async () => {
  const r = rng(13);
  const [rows, n] = [6, 11];
  const program = k.jit((x: k.Array) => k.argmax(x, -1), { name: "argmax", device }).lower(k.zeros([rows, n]));
  const ops = sessionOps(program);
  assert.equal(ops.filter((o) => o === "TopK").length, 1, ops.join(", "));
  assert.ok(!ops.includes("Neg"), ops.join(", "));
  const x = random(r, rows * n, 4);
  x[n + 3] = NaN; // row 1: NaN → n
  x[2 * n + 2] = x[2 * n + 7] = 9; // row 2: tied maxima → 2
  for (let j = 0; j < n; j++) x[3 * n + j] = -Infinity; // row 3: all −∞ → 0
  x[4 * n + 5] = Infinity; // row 4: +∞ → 5
  // row 5: no NaN, but both infinities and squares past f32's range (its NaN flag must stay false) → 6
  [x[5 * n + 1], x[5 * n + 2], x[5 * n + 3], x[5 * n + 6]] = [-Infinity, 3e38, -3e38, Infinity];
  const want = await run(refExecutor, program, [x]);
  const got = await run(ortExecutor, program, [x]);
  assert.deepEqual(Array.from(got[0] as Int32Array), Array.from(want[0] as Int32Array));
  assert.deepEqual(Array.from(want[0] as Int32Array).slice(1, 6), [n, 2, 0, 5, 6]);
  // Rows as wide as a vocabulary, the maximum tied far apart and next to each other: the first one.
  const width = 8192;
  const wide = k.jit((x: k.Array) => k.argmax(x, -1), { name: "argmax_wide", device }).lower(k.zeros([3, width]));
  const y = random(r, 3 * width, 4);
  for (const j of [5000, 8000, 100]) y[j] = 7;
  for (const j of [width + 4097, width + 4096, width + 8191]) y[j] = 7;
  y[2 * width + 8191] = 7;
  const wideWant = await run(refExecutor, wide, [y]);
  assert.deepEqual(Array.from(wideWant[0] as Int32Array), [100, 4096, 8191]);
  assert.deepEqual(Array.from((await run(ortExecutor, wide, [y]))[0] as Int32Array), [100, 4096, 8191]);
});

test("a chain that is not an RMS norm (a mean over the wrong count) stays composed", async () => {
  const r = rng(9);
  const shape = [3, 5, 4];
  // Σx² / 3 over 4 elements is not a mean: no RMS norm.
  const wrongCount = k
    .jit((x: k.Array) => x.mul(k.rsqrt(x.mul(x).sum(-1, { keepDims: true }).div(3).add(1e-5))), {
      name: "not_rms",
      device,
    })
    .lower(k.zeros(shape));
  assert.ok(!sessionOps(wrongCount).includes("SimplifiedLayerNormalization"));
  await assertOrtMatchesReference(wrongCount, [random(r, 60, 5)]);
});
