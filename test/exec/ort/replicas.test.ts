// Data parallelism on virtual CPU devices: one graph holds a copy of the program per replica, and
// all_reduce sums the copies' operands, exactly as the reference interpreter's replicas do.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { mlpData, mlpInit, mlpLoss } from "../../helpers/mlp.js";
import { mismatch } from "./compare.js";

const ort = new k.OrtExecutor({ devices: 3 });

async function runReplicated(executor: k.Executor, program: k.Program, replicas: number, args: k.HostArray[][]) {
  const exe = executor.compile(program, { replicas });
  const devices = executor.devices();
  const outs = exe.execute(args.map((r, i) => r.map((d, j) => executor.fromHost(d, program.inputs[j]!.aval, devices[i]))));
  return Promise.all(outs.map((r) => Promise.all(r.map((b) => b.toHost()))));
}

test("all_reduce sums over 3 replicas (floats and integers), each output on its replica's device", async () => {
  const f = (x: k.Array, n: k.Array) => [k.bind("all_reduce", [x.mul(x)], {}).add(x), k.bind("all_reduce", [n], {}), n];
  const program = k.jit(f).lower(k.zeros([4, 5]), k.zeros([3], "i32"));
  const args = [0, 1, 2].map((r) => [Float32Array.from({ length: 20 }, (_, i) => Math.sin(i + r)), Int32Array.of(r, 10 * r, 2147483647)]);
  const want = await runReplicated(k.refExecutor, program, 3, args);
  const got = await runReplicated(ort, program, 3, args);
  got.forEach((r, i) => {
    assert.equal(mismatch("f32", r[0]!, want[i]![0]!, { rtol: 1e-6 }), undefined);
    const ints = (a: k.HostArray) => Array.from(a as Int32Array);
    assert.deepEqual(ints(r[1]!), ints(want[i]![1]!), "integer sums wrap like the reference");
    assert.deepEqual(ints(r[2]!), ints(args[i]![1]!));
  });
  const exe = ort.compile(program, { replicas: 3 });
  const outs = exe.execute(args.map((r, i) => r.map((d, j) => ort.fromHost(d, program.inputs[j]!.aval, ort.devices()[i]))));
  assert.deepEqual(
    outs.map((r) => r[0]!.device.id),
    ["cpu:0", "cpu:1", "cpu:2"],
  );
});

test("data-parallel gradients: two half batches all-reduced equal the reference's", async () => {
  const grads = (p: ReturnType<typeof mlpInit>, x: k.Array, y: k.Array) =>
    k.treeMap((g: k.Array) => k.bind("all_reduce", [g], {}), k.grad(mlpLoss)(p, x, y));
  const dev = k.findDevice("ref:0");
  const params = mlpInit(8, 16, 4, 2, dev);
  const { x, y } = mlpData(32, 8, 4, 9, dev);
  const program = k.jit(grads).lower(params, x.slice([0, 0], [16, 8]), y.slice([0], [16]));
  const leaves = k.leaves(params as unknown as k.PyTree<k.Array>).map((a) => a.dataSync());
  const half = (a: k.Array, i: number) => a.slice([16 * i, 0].slice(0, a.ndim), [16 * (i + 1), 8].slice(0, a.ndim)).dataSync();
  const args = [0, 1].map((i) => [...leaves, half(x, i), half(y, i)]);
  const want = await runReplicated(k.refExecutor, program, 2, args);
  const got = await runReplicated(ort, program, 2, args);
  got.forEach((r, i) =>
    r.forEach((g, j) =>
      assert.equal(mismatch("f32", g, want[i]![j]!, { rtol: 1e-5, normwise: true }), undefined, `replica ${i} gradient ${j}`),
    ),
  );
});

test("more replicas than CPU devices is refused with a remedy", () => {
  const program = k.jit((x: k.Array) => x.add(1)).lower(k.zeros([2]));
  assert.throws(() => k.ortExecutor.compile(program, { replicas: 2 }), /KILN_CPU_DEVICES=2/);
});
