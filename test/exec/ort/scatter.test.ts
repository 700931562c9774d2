// scatter_add into a small table (a position embedding's gradient) is a product by a one-hot matrix;
// into a large one, or of a few rows, it stays one ScatterElements. Both give the reference
// interpreter's values, indices out of range clamped as XLA does.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { refExecutor, type Program } from "../../../src/index.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import { rng } from "../../helpers/random.js";
import { assertOrtMatchesReference } from "./compare.js";

const device = refExecutor.devices()[0];
const random = (r: () => number, n: number, scale = 1) => Float32Array.from({ length: n }, () => (r() * 2 - 1) * scale);
const opsOf = (p: Program) => lowerGraph(p, 1, { relayOutConstants: true }).graph.nodes.map((n) => n.op);

test("rows added into a small table: a one-hot product, the reference's values (out-of-range indices clamped)", async () => {
  const r = rng(31);
  const [rows, width, m] = [20, 8, 300];
  const f = (x: k.Array, idx: k.Array, u: k.Array) => k.scatterAdd(x, idx, u, 0);
  const program = k.jit(f, { name: "small_table", device }).lower(k.zeros([rows, width]), k.zeros([m], "i32"), k.zeros([m, width]));
  const ops = opsOf(program);
  assert.ok(ops.includes("Gemm") && !ops.includes("ScatterElements"), ops.join(", "));
  const idx = Int32Array.from({ length: m }, () => Math.floor(r() * (rows + 4)) - 2);
  await assertOrtMatchesReference(program, [random(r, rows * width), idx, random(r, m * width, 2)]);
});

test("an embedding's gradient: a small table's by a product, a large table's by ScatterElements", async () => {
  const r = rng(37);
  const grad = (rows: number) =>
    k
      .jit(
        k.grad((table: k.Array, ids: k.Array, w: k.Array) => k.take(table, ids, 0).mul(w).sum()),
        { name: `embedding_${rows}`, device },
      )
      .lower(k.zeros([rows, 6]), k.zeros([16, 20], "i32"), k.zeros([16, 20, 6]));
  for (const rows of [40, 2000]) {
    const program = grad(rows);
    assert.equal(opsOf(program).includes("ScatterElements"), rows > 512, opsOf(program).join(", "));
    const ids = Int32Array.from({ length: 16 * 20 }, () => Math.floor(r() * rows));
    await assertOrtMatchesReference(program, [random(r, rows * 6), ids, random(r, 16 * 20 * 6)]);
  }
});
