// How ONNX Runtime reduces: a max propagates NaN as the reference does (its own ReduceMax skips NaN),
// and over a million values or more finds NaN by the sums first; a float sum over leading axes (a bias's
// gradient) is a product by ones. Each gives the reference interpreter's values.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { refExecutor, type Program } from "../../../src/index.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import { rng } from "../../helpers/random.js";
import { assertOrtMatchesReference, run } from "./compare.js";

const device = refExecutor.devices()[0];
const random = (r: () => number, n: number, scale = 1) => Float32Array.from({ length: n }, () => (r() * 2 - 1) * scale);
const sessionOps = (p: Program) => lowerGraph(p, 1, { relayOutConstants: true }).graph.nodes.map((n) => n.op);

test("max over an axis propagates NaN as the reference does, and only NaN (infinities and overflowing squares are no NaN)", async () => {
  const n = 5;
  const rows = [
    [1, NaN, 3, -2, 0],
    [Infinity, -Infinity, 1, 2, 3],
    [3e38, -3e38, 3e38, 1, -1],
    [-Infinity, -Infinity, -Infinity, -Infinity, -Infinity],
    [NaN, Infinity, -Infinity, 3e38, 0],
    [-1, -2, -3, -4, -0.5],
  ];
  const program = k.jit((x: k.Array) => [k.max(x, -1), k.max(x, 0)], { name: "max_nan", device }).lower(k.zeros([rows.length, n]));
  const x = Float32Array.from(rows.flat());
  const want = await run(refExecutor, program, [x]);
  assert.deepEqual(Array.from(want[0] as Float32Array), [NaN, Infinity, Math.fround(3e38), -Infinity, NaN, -0.5]);
  await assertOrtMatchesReference(program, [x]);
});

test("a max over a million values or more checks for NaN by their sums first, and exactly only where a sum is NaN", async () => {
  const [rows, n] = [128, 8192];
  const program = k.jit((x: k.Array) => [k.max(x, -1), k.argmax(x, -1)], { name: "max_nan_wide", device }).lower(k.zeros([rows, n]));
  assert.ok(sessionOps(program).includes("If"), sessionOps(program).join(", "));
  const x = random(rng(17), rows * n, 4);
  const want = async (data: Float32Array) => {
    const ref = await run(refExecutor, program, [data]);
    await assertOrtMatchesReference(program, [data]);
    return ref;
  };
  // No sum is NaN: the exact check does not run.
  await want(x);
  // Row 3 holds a NaN, row 9 both infinities (its sum is NaN, its max +inf), row 20 squares past f32's range.
  x[3 * n + 4000] = NaN;
  [x[9 * n + 1], x[9 * n + 8000]] = [Infinity, -Infinity];
  [x[20 * n], x[20 * n + 1], x[20 * n + 2]] = [3e38, 3e38, -3e38];
  const [max, at] = (await want(x)) as [Float32Array, Int32Array];
  assert.deepEqual([max[3], max[9], max[20]], [NaN, Infinity, Math.fround(3e38)]);
  assert.deepEqual([at[3], at[9], at[20]], [n, 1, 0]);
});

test("float sums over the leading axes of many rows are products by ones; other sums stay ReduceSum", async () => {
  const r = rng(23);
  const f = (x: k.Array, y: k.Array) => [x.sum([0, 1]), x.sum(0), y.sum(0), x.sum(2), x.astype("i32").sum([0, 1])];
  const program = k.jit(f, { name: "leading_sums", device }).lower(k.zeros([16, 32, 24]), k.zeros([100, 24]));
  const ops = sessionOps(program);
  // [16·32, 24] → [24] over 512 rows: a product; [32·24] over 16 rows, [100] rows, the last axis and integers: ReduceSum.
  assert.equal(ops.filter((o) => o === "MatMul").length, 1, ops.join(", "));
  assert.equal(ops.filter((o) => o === "ReduceSum").length, 4, ops.join(", "));
  await assertOrtMatchesReference(program, [random(r, 16 * 32 * 24, 3), random(r, 100 * 24)]);
});
