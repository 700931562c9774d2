// The IR rewrites applied before lowering: they fire where intended and keep the values.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { foldTransposedProducts } from "../../../src/exec/ort/rewrite.js";
import { mismatch } from "./compare.js";

const cpu = k.findDevice("cpu:0"),
  ref = k.findDevice("ref:0");

test("weight gradients are computed in place: transpose(dot_general) folds into one dot_general", () => {
  // Batched and plain products, gradients for both operands of each.
  const loss = (w: k.Array, v: k.Array, x: k.Array) => k.einsum("bsd,bde->bse", x.matmul(w).tanh(), v).square().sum();
  const g = (w: k.Array, v: k.Array, x: k.Array) => k.grad(loss, { argnums: [0, 1, 2] })(w, v, x) as k.Array[];
  const arr = (shape: number[], device: k.Device, seed: number) =>
    k.array(
      Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(i * seed)),
      { shape, device },
    );
  const args = (d: k.Device) => [arr([5, 6], d, 1), arr([3, 6, 4], d, 2), arr([3, 7, 5], d, 3)] as const;
  const program = k.jit(g).lower(...args(ref));
  const rewritten = foldTransposedProducts(program);
  const transposes = (p: k.Program) => p.eqns.filter((e) => e.prim === "transpose").length;
  assert.ok(transposes(rewritten) < transposes(program), `${transposes(program)} transposes before, ${transposes(rewritten)} after`);
  assert.equal(rewritten.eqns.length, program.eqns.length - (transposes(program) - transposes(rewritten)));
  const want = (k.jit(g, { device: ref })(...args(ref)) as k.Array[]).map((a) => a.dataSync());
  const got = (k.jit(g, { device: cpu })(...args(cpu)) as k.Array[]).map((a) => a.dataSync());
  want.forEach((w, i) => assert.equal(mismatch("f32", got[i]!, w, { rtol: 1e-5, normwise: true }), undefined, `gradient ${i}`));
});
