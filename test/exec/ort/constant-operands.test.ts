// Graphs over compile-time constants for a session (generation compiles its weights in): a product with a constant
// matrix is one MatMul of the operand as it is (no Reshape around it) by the matrix laid out [in, out],
// in either orientation the program reads it (and a matrix nothing reads any more is left out of the
// model); a reshape of a reshape is one Reshape. Each gives the
// reference interpreter's values.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { refExecutor, ortExecutor } from "../../../src/index.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import { rng } from "../../helpers/random.js";
import { assertOrtMatchesReference, mismatch, run } from "./compare.js";

const random = (r: () => number, n: number) => Float32Array.from({ length: n }, () => r() * 2 - 1);

test("x · W and x · Wᵀ with W a constant: MatMul by the [in, out] matrix, the reference's values", async () => {
  const r = rng(7);
  const [batch, t, inner, outer] = [3, 2, 5, 7];
  const w = k.array(random(r, outer * inner), { shape: [outer, inner], device: refExecutor.devices()[0] });
  const v = k.array(random(r, inner * outer), { shape: [inner, outer], device: refExecutor.devices()[0] });
  // x · Wᵀ (a linear layer's weight [out, in]) and y · V (V [in, out]), x and y [batch, t, in].
  const f = (x: k.Array, y: k.Array) => [k.einsum("bti,oi->bto", x, w), k.einsum("bti,io->bto", y, v)];
  const zeros = k.zeros([batch, t, inner], "f32");
  const program = k.jit(f, { name: "constant_products", device: refExecutor.devices()[0] }).lower(zeros, zeros);
  assert.equal(program.consts.length, 2, "both matrices are constants of the program");
  const { graph } = lowerGraph(program, 1, { relayOutConstants: true });
  const ops = graph.nodes.map((n) => n.op);
  assert.deepEqual(ops, ["MatMul", "MatMul"], `one MatMul per product, nothing around it: ${ops.join(", ")}`);
  // W [out, in] itself is no longer read: only the two [in, out] matrices are in the model.
  assert.deepEqual(
    graph.initializers.map((t) => t.dims),
    [
      [inner, outer],
      [inner, outer],
    ],
  );
  // Lowered for export, each weight is stored once, as the program holds it.
  assert.deepEqual(
    lowerGraph(program, 1)
      .graph.initializers.filter((t) => t.dims.length === 2)
      .map((t) => t.dims),
    [
      [outer, inner],
      [inner, outer],
    ],
  );
  await assertOrtMatchesReference(program, [random(r, batch * t * inner), random(r, batch * t * inner)]);
});

test("products of one operand by several constant matrices: one MatMul by them side by side and a Split", async () => {
  const r = rng(11);
  const [t, inner] = [3, 6];
  const widths = [4, 2, 5];
  const device = refExecutor.devices()[0];
  const ws = widths.map((n) => k.array(random(r, n * inner), { shape: [n, inner], device }));
  // A layer's projections: three weights [out, in] of one normalized input, and another input's own.
  const f = (x: k.Array, y: k.Array) => [...ws.map((w) => k.einsum("ti,oi->to", x, w)), k.einsum("ti,oi->to", y, ws[0]!)];
  const zeros = k.zeros([t, inner], "f32");
  const program = k.jit(f, { name: "shared_operand_products", device }).lower(zeros, zeros);
  const ops = lowerGraph(program, 1, { relayOutConstants: true }).graph.nodes.map((n) => n.op);
  assert.deepEqual(ops, ["MatMul", "Split", "MatMul"], ops.join(", "));
  const xs = [random(r, t * inner), random(r, t * inner)];
  const want = await run(refExecutor, program, xs);
  const got = await run(ortExecutor, program, xs);
  program.outputs.forEach((o, i) => {
    assert.deepEqual(o.aval.shape, [t, i < 3 ? widths[i]! : widths[0]!]);
    const bad = mismatch("f32", got[i]!, want[i]!, { rtol: 1e-5, normwise: true });
    assert.ok(!bad, `output ${i}: ${bad}`);
  });
});

test("a reshape of a reshape lowers to one Reshape of the first one's input", async () => {
  const f = (x: k.Array) => x.mul(2).reshape([6, 4]).reshape([2, 12]).add(1);
  const program = k.jit(f, { name: "reshape_chain", device: refExecutor.devices()[0] }).lower(k.zeros([4, 6], "f32"));
  const ops = lowerGraph(program, 1, { relayOutConstants: true }).graph.nodes.map((n) => n.op);
  assert.deepEqual(ops, ["Mul", "Reshape", "Add"]);
  const x = Float32Array.from({ length: 24 }, (_, i) => i - 7.5);
  assert.deepEqual(await run(ortExecutor, program, [x]), await run(refExecutor, program, [x]));
});

test("a constant matrix read by several products (the steps of an unrolled decode call) is re-laid out once", () => {
  const r = rng(17);
  const [t, inner] = [2, 6];
  const device = refExecutor.devices()[0];
  const [wq, wk] = [4, 3].map((n) => k.array(random(r, n * inner), { shape: [n, inner], device }));
  // Two steps, each projecting its own input by both weights (merged side by side) and by wq alone.
  const step = (x: k.Array) => [k.einsum("ti,oi->to", x, wq!), k.einsum("ti,oi->to", x, wk!)];
  const program = k
    .jit((x: k.Array, y: k.Array) => [...step(x), ...step(y), k.einsum("ti,oi->to", x.mul(2), wq!)], {
      name: "repeated_constant_products",
      device,
    })
    .lower(k.zeros([t, inner], "f32"), k.zeros([t, inner], "f32"));
  const { graph } = lowerGraph(program, 1, { relayOutConstants: true });
  const matrices = graph.initializers.filter((x) => x.dims.length === 2 && x.dims[0] === inner).map((x) => x.dims);
  assert.deepEqual(
    matrices,
    [
      [inner, 4],
      [inner, 7],
    ],
    `one [in, out] copy of wq and one of wq and wk side by side: ${JSON.stringify(matrices)}`,
  );
});
