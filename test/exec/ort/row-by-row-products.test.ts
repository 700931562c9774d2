// A batched product whose left matrices have 2 rows and whose right operand is an input (a decode
// step's grouped query heads against the key/value cache) is lowered as one product per row, the right
// operand broadcast over the rows, so that ONNX Runtime does not pack it first; the reference's values.
// Products of more rows, and products by constant weights, keep one MatMul of all rows.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { refExecutor } from "../../../src/index.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import type { GraphDef } from "../../../src/io/onnx/proto.js";
import { rng } from "../../helpers/random.js";
import { assertOrtMatchesReference } from "./compare.js";

const device = refExecutor.devices()[0];

/** The shape each MatMul's left operand has in the graph (an input's, or its Reshape's target), in node order. */
function leftShapes(graph: GraphDef): number[][] {
  const producer = new Map(graph.nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const int64s = (name: string) =>
    Array.from(new BigInt64Array(graph.initializers.find((t) => t.name === name)!.raw!.slice().buffer), Number);
  return graph.nodes
    .filter((n) => n.op === "MatMul")
    .map((n) => {
      const input = graph.inputs.find((i) => i.name === n.inputs[0]);
      if (input) return input.dims.map(Number);
      const reshape = producer.get(n.inputs[0]!);
      assert.equal(reshape?.op, "Reshape", `MatMul ${n.outputs[0]}'s left operand is an input or comes from a Reshape`);
      return int64s(reshape!.inputs[1]!);
    });
}

// The products of grouped attention for one new token, as nn/causal-attention.ts computes them: the
// scores of q [b, 1, kvHeads, groups, d] against keys [b, kvHeads, s, d], and the context of
// probabilities [b, kvHeads, groups, 1, s] and values [b, kvHeads, s, d].
const attention = (q: k.Array, keys: k.Array, probs: k.Array, values: k.Array) => [
  k.einsum("btngd,bnsd->bngts", q, keys),
  k.einsum("bngts,bnsd->btngd", probs, values),
];
const operands = (b: number, n: number, groups: number, s: number, d: number): [k.Array, k.Array, k.Array, k.Array] => [
  k.zeros([b, 1, n, groups, d]),
  k.zeros([b, n, s, d]),
  k.zeros([b, n, groups, 1, s]),
  k.zeros([b, n, s, d]),
];
const data = (r: () => number, program: k.Program) =>
  program.inputs.map((v) => Float32Array.from({ length: v.aval.shape.reduce((x, y) => x * y, 1) }, r));

test("2-row products by an input run row by row (the right operand unpacked); the reference's values", async () => {
  const r = rng(9);
  const [b, n, groups, s, d] = [3, 2, 2, 11, 8];
  const program = k.jit(attention, { name: "row_by_row", device }).lower(...operands(b, n, groups, s, d));
  const { graph } = lowerGraph(program, 1);
  // Each product's left operand is [b, n, rows, 1, ·]: one single-row product per row.
  assert.deepEqual(leftShapes(graph), [
    [b, n, groups, 1, d],
    [b, n, groups, 1, s],
  ]);
  await assertOrtMatchesReference(program, data(r, program));
});

test("products of more rows, or by a constant, stay one MatMul of all rows", async () => {
  const r = rng(10);
  const [b, n, groups, s, d] = [3, 2, 4, 11, 8];
  const program = k.jit(attention, { name: "packed", device }).lower(...operands(b, n, groups, s, d));
  assert.deepEqual(leftShapes(lowerGraph(program, 1).graph), [
    [b, n, groups, d],
    [b, n, groups, s],
  ]);
  await assertOrtMatchesReference(program, data(r, program));

  // Two rows by a constant matrix: one MatMul by the weights as they are (ORT packs constants once).
  const w = k.array(Float32Array.from({ length: 2 * d * 5 }, r), { shape: [2, d, 5], device });
  const byConstant = k.jit((x: k.Array) => k.einsum("bgd,bde->bge", x, w), { name: "by_constant", device }).lower(k.zeros([2, 2, d]));
  assert.deepEqual(leftShapes(lowerGraph(byConstant, 1, { relayOutConstants: true }).graph), [[2, 2, d]]);
});
