// softmax is a primitive: one ONNX Softmax along any axis (in a session and in an exported model), the
// reference interpreter's values (a row holding NaN all NaN, a fully masked row uniform), and a gradient
// taken from its output, so a training step keeps no exponentials for its backward pass.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { refExecutor, type Program } from "../../../src/index.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import { rng } from "../../helpers/random.js";
import { assertOrtMatchesReference } from "./compare.js";

const device = refExecutor.devices()[0];
const random = (r: () => number, n: number, scale = 1) => Float32Array.from({ length: n }, () => (r() * 2 - 1) * scale);
const opsOf = (p: Program, session = true) => lowerGraph(p, 1, { relayOutConstants: session }).graph.nodes.map((n) => n.op);

test("softmax along any axis is one Softmax node, in a session and in an exported model; the reference's values", async () => {
  const r = rng(3);
  const shape = [2, 3, 4, 9];
  const f = (x: k.Array, visible: k.Array) => [k.softmax(k.where(visible, x.mul(0.125), -1e9), -1), k.softmax(x, 1)];
  const program = k.jit(f, { name: "softmax", device }).lower(k.zeros(shape), k.zeros(shape, "bool"));
  for (const session of [true, false]) {
    const ops = opsOf(program, session);
    assert.equal(ops.filter((o) => o === "Softmax").length, 2, ops.join(", "));
    assert.ok(!ops.includes("ReduceMax") && !ops.includes("Exp"), `no composed softmax: ${ops.join(", ")}`);
  }
  const x = random(r, 2 * 3 * 4 * 9, 20);
  x[9 * 5 + 2] = NaN; // row 5 (last axis) and a column (axis 1) hold a NaN: all NaN
  // Row 7 sees nothing: uniform.
  const visible = Uint8Array.from({ length: x.length }, (_, i) => (Math.floor(i / 9) === 7 ? 0 : r() < 0.8 ? 1 : 0));
  await assertOrtMatchesReference(program, [x, visible]);
});

test("softmax's gradient comes from its output: the backward pass is products and a sum, no exponentials", async () => {
  const r = rng(4);
  const w = k.array(random(r, 6 * 7), { shape: [6, 7], device });
  const loss = (x: k.Array) => k.softmax(x, -1).mul(w).sum();
  const program = k.jit(k.grad(loss), { name: "softmax_grad", device }).lower(k.zeros([6, 7]));
  const ops = opsOf(program);
  assert.equal(ops.filter((o) => o === "Softmax").length, 1, ops.join(", "));
  assert.ok(!ops.includes("Exp") && !ops.includes("Div"), ops.join(", "));
  await assertOrtMatchesReference(program, [random(r, 6 * 7, 4)]);
});
