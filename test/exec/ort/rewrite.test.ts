// The IR rewrites applied before lowering: they fire where intended and keep the values.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { foldTransposedProducts, scaleRowsAfterProducts } from "../../../src/exec/ort/rewrite.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import { mismatch } from "./compare.js";

const cpu = k.findDevice("cpu:0"),
  ref = k.findDevice("ref:0");

/** Values of `shape` on `device`: sin(i · seed) for element i. */
const arr = (shape: number[], device: k.Device, seed: number) =>
  k.array(
    Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(i * seed)),
    { shape, device },
  );

/** The gradients `g` computes on ONNX Runtime are the reference interpreter's, to f32 rounding. */
function assertSameGradients(g: (...xs: k.Array[]) => k.Array[], args: (d: k.Device) => readonly k.Array[]): void {
  const want = k
    .jit(g, { device: ref })(...args(ref))
    .map((a) => a.dataSync());
  const got = k
    .jit(g, { device: cpu })(...args(cpu))
    .map((a) => a.dataSync());
  want.forEach((w, i) => assert.equal(mismatch("f32", got[i]!, w, { rtol: 1e-5, normwise: true }), undefined, `gradient ${i}`));
}

test("weight gradients are computed in place: transpose(dot_general) folds into one dot_general", () => {
  // Batched and plain products, gradients for both operands of each.
  const loss = (w: k.Array, v: k.Array, x: k.Array) => k.einsum("bsd,bde->bse", x.matmul(w).tanh(), v).square().sum();
  const g = (w: k.Array, v: k.Array, x: k.Array) => k.grad(loss, { argnums: [0, 1, 2] })(w, v, x) as k.Array[];
  const args = (d: k.Device) => [arr([5, 6], d, 1), arr([3, 6, 4], d, 2), arr([3, 7, 5], d, 3)] as const;
  const program = k.jit(g).lower(...args(ref));
  const rewritten = foldTransposedProducts(program);
  const transposes = (p: k.Program) => p.eqns.filter((e) => e.prim === "transpose").length;
  assert.ok(transposes(rewritten) < transposes(program), `${transposes(program)} transposes before, ${transposes(rewritten)} after`);
  assert.equal(rewritten.eqns.length, program.eqns.length - (transposes(program) - transposes(rewritten)));
  assertSameGradients(g, args);
});

test("a vocabulary head's gradient scales rows on the products' side: no multiply over the logits, the same gradients", () => {
  // A masked, summed cross-entropy (ignored rows have zero weight) through a head whose gradient flows to
  // both the hidden rows and the head's weight, as a language model's does.
  const labels = k.array(
    Int32Array.from({ length: 12 }, (_, i) => (i % 5 === 3 ? -100 : (i * 7) % 9)),
    { shape: [12], dtype: "i32" },
  );
  const loss = (w: k.Array, h: k.Array) => k.crossEntropy(h.tanh().matmul(w.transpose()), labels, { reduction: "sum" }).mul(0.37);
  const g = (w: k.Array, h: k.Array) => k.grad(loss, { argnums: [0, 1] })(w, h) as k.Array[];
  const args = (d: k.Device) => [arr([9, 6], d, 1), arr([12, 6], d, 2)] as const;
  const program = foldTransposedProducts(k.jit(g).lower(...args(ref)));
  const rewritten = scaleRowsAfterProducts(program);
  const gradient = (p: k.Program) => p.eqns.find((e) => e.prim === "softmax_cross_entropy_grad")!;
  const readers = (p: k.Program) => p.eqns.filter((e) => e.inputs.includes(gradient(p).out));
  assert.deepEqual(
    readers(program).map((e) => e.prim),
    ["dot_general", "dot_general"],
  );
  assert.ok(!rewritten.eqns.includes(gradient(program)), "the scaled gradient is replaced");
  assert.deepEqual(
    readers(rewritten).map((e) => e.prim),
    ["dot_general", "dot_general"],
  );
  // Its cotangent is now a broadcast constant one, which the lowering writes without a Mul.
  const ones = rewritten.eqns.find((e) => e.out === gradient(rewritten).inputs[2])!;
  assert.equal(ones.prim, "broadcast_in_dim");
  assert.deepEqual([...rewritten.consts.find((c) => c.v === ones.inputs[0])!.value].map(Number), [1]);
  const graph = lowerGraph(program, 1, { relayOutConstants: true }).graph;
  const producer = (name: string) => graph.nodes.find((m) => m.outputs.includes(name))?.op;
  const probabilities = (n: { op: string; inputs: readonly string[] }) =>
    n.inputs.some((i) => ["Exp", "Softmax"].includes(producer(i) ?? ""));
  assert.ok(graph.nodes.some(probabilities), "the probabilities are read");
  assert.ok(!graph.nodes.some((n) => n.op === "Mul" && probabilities(n)), "no Mul reads the probabilities");
  assertSameGradients(g, args);
});
