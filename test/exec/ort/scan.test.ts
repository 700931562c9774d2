// scan on ONNX Runtime: one `Scan` node whose body is the loop body, results and gradients equal to
// the reference interpreter's, and replicas whose loop bodies all_reduce across each other.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { lowerProgram } from "../../../src/exec/ort/lower-program.js";
import { mismatch } from "./compare.js";
import { randn, rng } from "../../helpers/random.js";

const ort = new k.OrtExecutor({ devices: 2 });

async function run(executor: k.Executor, program: k.Program, replicas: number, args: k.HostArray[][]) {
  const exe = executor.compile(program, { replicas });
  const devices = executor.devices();
  const outs = exe.execute(args.map((r, i) => r.map((d, j) => executor.fromHost(d, program.inputs[j]!.aval, devices[i]))));
  return Promise.all(outs.map((r) => Promise.all(r.map((b) => b.toHost()))));
}

const cell = (w: k.Array) => (h: k.Array, x: k.Array) => {
  const next = h.matmul(w).add(x).tanh();
  return [next, next.sum()] as const;
};

test("a loop and its gradient lower to Scan nodes and equal the reference interpreter", async () => {
  k.setDefaultDevice("ref:0");
  const f = (w: k.Array, h: k.Array, xs: k.Array) =>
    k.valueAndGrad(
      (w: k.Array, h: k.Array) => {
        const [hn, ys] = k.scan(cell(w), h, xs, { reverse: true });
        return hn.sum().add(ys.mul(ys).sum());
      },
      { argnums: [0, 1] },
    )(w, h);
  const program = k.jit(f).lower(k.zeros([4, 4]), k.zeros([2, 4]), k.zeros([5, 2, 4]));
  const lowered = lowerProgram(program, 1, "test");
  const text = new TextDecoder("latin1").decode(lowered.model);
  assert.equal(text.split("Scan").length - 1, 2, "two Scan nodes: the forward loop and the reversed one");
  const r = rng(9);
  const args = [
    [4, 4],
    [2, 4],
    [5, 2, 4],
  ].map((s) =>
    Float32Array.from(
      randn(
        r,
        s.reduce((a, b) => a * b, 1),
      ),
      (v) => v * 0.5,
    ),
  );
  const want = await run(k.refExecutor, program, 1, [args]);
  const got = await run(ort, program, 1, [args]);
  got[0]!.forEach((g, j) => assert.equal(mismatch("f32", g, want[0]![j]!, { rtol: 1e-5, normwise: true }), undefined, `output ${j}`));
});

test("replicas: an all_reduce inside the loop body sums every replica's operand on each iteration", async () => {
  k.setDefaultDevice("ref:0");
  const f = (x: k.Array) =>
    k.scan((c: k.Array, xi: k.Array) => [c.add(k.bind("all_reduce", [xi.mul(c.add(1))], {})), c] as const, k.zeros([2]), x);
  const program = k.jit(f).lower(k.zeros([3, 2]));
  const args = [[Float32Array.of(1, 2, 3, 4, 5, 6)], [Float32Array.of(-1, 0.5, 2, 2, 0, 1)]];
  const want = await run(k.refExecutor, program, 2, args);
  const got = await run(ort, program, 2, args);
  got.forEach((rep, i) => rep.forEach((g, j) => assert.deepEqual(Array.from(g as Float32Array), Array.from(want[i]![j]! as Float32Array))));
  assert.notDeepEqual(Array.from(want[0]![0]! as Float32Array), [0, 0]);
});
