// A transpose that moves only dimensions of size 1 (a decode step's [batch, 1, heads, dim] values) is
// lowered as a Reshape, in the transpose itself and around a product; the reference's values. A
// transpose that reorders real dimensions stays one.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { refExecutor, ortExecutor } from "../../../src/index.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import { rng } from "../../helpers/random.js";
import { run } from "./compare.js";

const device = refExecutor.devices()[0];

test("transposes that move only size-1 dims are Reshapes; others stay Transposes; the reference's values", async () => {
  const r = rng(4);
  const [b, h, d, s] = [3, 2, 5, 7];
  // q [b, 1, h, d] → [b, h, 1, d] (a decode step's query), its scores against keys [b, h, s, d], and a real transpose.
  const f = (q: k.Array, keys: k.Array) => {
    const heads = q.transpose([0, 2, 1, 3]);
    return [heads, k.einsum("bhtd,bhsd->bhts", heads, keys), keys.transpose([0, 2, 1, 3])];
  };
  const program = k.jit(f, { name: "size_one_transposes", device }).lower(k.zeros([b, 1, h, d]), k.zeros([b, h, s, d]));
  const ops = lowerGraph(program, 1).graph.nodes.map((n) => n.op);
  // The keys' two (read transposed by the product, and returned transposed); none for the query.
  assert.equal(ops.filter((o) => o === "Transpose").length, 2, ops.join(", "));
  const xs = [Float32Array.from({ length: b * h * d }, r), Float32Array.from({ length: b * h * s * d }, r)];
  const want = await run(refExecutor, program, xs);
  const got = await run(ortExecutor, program, xs);
  want.forEach((w, i) =>
    (w as Float32Array).forEach((x, j) => assert.ok(Math.abs(x - (got[i] as Float32Array)[j]!) < 1e-5, `output ${i}, element ${j}`)),
  );
});
