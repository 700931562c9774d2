// Attention's keys and values are each read by two products in a training step, one of them transposed
// (keys: [batch, heads, dim, keys] for the scores, [batch, heads, keys, dim] for the queries' gradient;
// values the other way round). Each is transposed once: the second product reads that copy through
// FusedMatMul's transA/transB instead of a second Transpose. The reference's values.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { refExecutor } from "../../../src/index.js";
import type { NodeDef } from "../../../src/io/onnx/proto.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import { rng } from "../../helpers/random.js";
import { assertOrtMatchesReference } from "./compare.js";

const device = refExecutor.devices()[0];

/** For each value, the perms of the Transposes of it. */
function transposesByInput(nodes: readonly NodeDef[]): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const n of nodes.filter((n) => n.op === "Transpose")) {
    const perm = n.attrs!.perm!;
    by.set(n.inputs[0]!, [...(by.get(n.inputs[0]!) ?? []), JSON.stringify(perm.kind === "ints" ? perm.value : perm)]);
  }
  return by;
}

test("attention's keys and values are transposed once each in a training step; the reference's gradients", async () => {
  const [b, s, h, d] = [2, 5, 3, 4];
  // Laid out as a BERT layer's projections leave them: [batch, seq, heads, dim].
  const loss = (q: k.Array, keys: k.Array, values: k.Array, w: k.Array) => {
    const probs = k.softmax(k.einsum("bqhd,bkhd->bhqk", q, keys), -1);
    return k.einsum("bhqk,bkhd->bqhd", probs, values).mul(w).sum();
  };
  const program = k
    .jit(k.grad(loss, { argnums: [0, 1, 2] }), { name: "attention_grad", device })
    .lower(k.zeros([b, s, h, d]), k.zeros([b, s, h, d]), k.zeros([b, s, h, d]), k.zeros([b, s, h, d]));
  const nodes = lowerGraph(program, 1, { relayOutConstants: true }).graph.nodes;
  for (const [input, perms] of transposesByInput(nodes))
    assert.equal(new Set(perms).size, perms.length, `${input} is transposed the same way twice: ${perms.join(" ")}`);
  const twice = [...transposesByInput(nodes).values()].filter((perms) => perms.length > 1);
  assert.deepEqual(twice, [], "no value is transposed into both a matrix and its swap");
  assert.ok(
    nodes.some((n) => n.op === "FusedMatMul"),
    nodes.map((n) => n.op).join(", "),
  );
  const r = rng(7);
  const xs = [0, 1, 2, 3].map(() => Float32Array.from({ length: b * s * h * d }, () => r() * 2 - 1));
  await assertOrtMatchesReference(program, xs);
});
