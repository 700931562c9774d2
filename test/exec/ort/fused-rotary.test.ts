// A rotary position embedding as nn/rotary.ts computes it (x · cos + rotate_half(x) · sin, the angles
// of each row's positions) is one RotaryEmbedding kernel in a session's graph, per rotated value, and so
// is its gradient (a rotation by the negated angles), with the reference interpreter's values. Angles
// whose halves may differ, or that differ per head, and an exported model keep the composed ops.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { refExecutor, type Program } from "../../../src/index.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import { applyRotary, ropeInverseFrequencies, rotaryAngles } from "../../../src/nn/rotary.js";
import { rng } from "../../helpers/random.js";
import { assertOrtMatchesReference } from "./compare.js";

const device = refExecutor.devices()[0];
const random = (r: () => number, n: number, scale = 1) => Float32Array.from({ length: n }, () => (r() * 2 - 1) * scale);
const sessionOps = (p: Program) => lowerGraph(p, 1, { relayOutConstants: true }).graph.nodes.map((n) => n.op);
const count = (ops: string[], op: string) => ops.filter((o) => o === op).length;

test("rotary embeddings of queries and keys: one RotaryEmbedding each, their tables sliced once, the reference's values", async () => {
  const r = rng(21);
  const [b, t, heads, kvHeads, d] = [3, 5, 4, 2, 16];
  const inverse = ropeInverseFrequencies(d, 10000);
  const f = (q: k.Array, keys: k.Array, positions: k.Array) => {
    const angles = rotaryAngles(positions, inverse, "f32");
    return [applyRotary(q, angles), applyRotary(keys, angles)];
  };
  const program = k
    .jit(f, { name: "rotary", device })
    .lower(k.zeros([b, t, heads, d]), k.zeros([b, t, kvHeads, d]), k.zeros([b, t], "i32"));
  const ops = sessionOps(program);
  assert.equal(count(ops, "RotaryEmbedding"), 2, ops.join(", "));
  assert.equal(count(ops, "Neg"), 0, ops.join(", "));
  // The first half of cos and of sin, read by both rotations.
  assert.equal(count(ops, "Slice"), 2, ops.join(", "));
  // An exported model keeps plain ONNX ops.
  assert.ok(!lowerGraph(program, 1).graph.nodes.some((n) => n.op === "RotaryEmbedding"));
  // Left-padded rows as generation lays them out: positions 0 … and large ones.
  const positions = Int32Array.from({ length: b * t }, (_, i) => (i < t ? 0 : i < 2 * t ? i - t : 1000 + 37 * i));
  await assertOrtMatchesReference(program, [random(r, b * t * heads * d, 2), random(r, b * t * kvHeads * d, 2), positions]);
});

test("not a rotary embedding of ORT's kind: angles whose halves may differ, or that differ per head, stay composed", async () => {
  const r = rng(22);
  const [b, t, heads, d] = [2, 3, 4, 8];
  const rotateHalf = (x: k.Array) => {
    const [x1, x2] = k.split(x, [d / 2, d / 2], -1) as [k.Array, k.Array];
    return k.concat([x2.neg(), x1], -1);
  };
  // cos and sin given: nothing says their two halves are equal.
  const given = k
    .jit((x: k.Array, cos: k.Array, sin: k.Array) => x.mul(cos).add(rotateHalf(x).mul(sin)), { name: "given_angles", device })
    .lower(k.zeros([b, t, heads, d]), k.zeros([b, t, 1, d]), k.zeros([b, t, 1, d]));
  assert.equal(count(sessionOps(given), "RotaryEmbedding"), 0);
  await assertOrtMatchesReference(given, [random(r, b * t * heads * d), random(r, b * t * d), random(r, b * t * d)]);
  // Angles per head: the kernel has one table row per position for every head.
  const perHead = k
    .jit(
      (x: k.Array, f: k.Array) => {
        const emb = k.concat([f, f], -1);
        return x.mul(k.cos(emb)).add(rotateHalf(x).mul(k.sin(emb)));
      },
      { name: "per_head_angles", device },
    )
    .lower(k.zeros([b, t, heads, d]), k.zeros([b, t, heads, d / 2]));
  assert.equal(count(sessionOps(perHead), "RotaryEmbedding"), 0);
  await assertOrtMatchesReference(perHead, [random(r, b * t * heads * d), random(r, (b * t * heads * d) / 2, 3)]);
});

test("a training step's rotary embedding: one RotaryEmbedding forward, one back (the negated angles), the reference's values", async () => {
  const r = rng(23);
  const [b, t, heads, d] = [3, 5, 4, 16];
  const inverse = ropeInverseFrequencies(d, 10000);
  const loss = (q: k.Array, positions: k.Array, w: k.Array) =>
    applyRotary(q, rotaryAngles(positions, inverse, "f32"))
      .mul(w)
      .sum();
  const program = k
    .jit(k.valueAndGrad(loss), { name: "rotary_step", device })
    .lower(k.zeros([b, t, heads, d]), k.zeros([b, t], "i32"), k.zeros([b, t, heads, d]));
  const ops = sessionOps(program);
  assert.equal(count(ops, "RotaryEmbedding"), 2, ops.join(", "));
  // No halves split, negated, concatenated or padded: the two Concats make the angles, [c, c] of cos and of sin.
  assert.ok(!ops.includes("Pad") && !ops.includes("Split") && count(ops, "Concat") === 2, ops.join(", "));
  const positions = Int32Array.from({ length: b * t }, (_, i) => (i % t) + 3 * Math.floor(i / t));
  await assertOrtMatchesReference(program, [random(r, b * t * heads * d, 2), positions, random(r, b * t * heads * d)]);
});
