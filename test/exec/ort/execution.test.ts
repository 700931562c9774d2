// How programs run on the ONNX Runtime executor: asynchronously on a worker (the event loop keeps
// running), with synchronous reads that block until the value exists, host round trips for every
// dtype, donation that recycles memory (a steady loop allocates nothing), and errors that name the
// program and propagate to dependent runs.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import type { Program } from "../../../src/index.js";
import { ortRuntime } from "../../../src/exec/ort/runtime.js";

const cpu = k.findDevice("cpu:0");

test("the CPU device is the default device, and eager ops run there", () => {
  assert.equal(k.getDefaultDevice().id, "cpu:0");
  const a = k.array(
    [
      [1, 2],
      [3, 4],
    ],
    { device: cpu },
  );
  const b = a.matmul(a).add(1);
  assert.equal(b.device.id, "cpu:0");
  assert.deepEqual(b.toArray(), [
    [8, 11],
    [16, 23],
  ]);
});

test("host round trips keep every dtype's bits, and reads are copies", async () => {
  const cases: [k.DType, k.HostArray][] = [
    ["f32", Float32Array.of(1.5, -0, NaN, Infinity)],
    ["f64", Float64Array.of(Math.PI, -1e300)],
    ["bf16", Uint16Array.of(0x3f80, 0xff81)],
    ["f16", Uint16Array.of(0x3c00, 0x7c00)],
    ["i32", Int32Array.of(-2147483648, 7)],
    ["u32", Uint32Array.of(0xffffffff, 0)],
    ["bool", Uint8Array.of(1, 0)],
    ["i64", BigInt64Array.of(-(2n ** 62n), 5n)],
  ];
  for (const [dtype, data] of cases) {
    const x = k.fromHost(data, [data.length], dtype, cpu);
    const host = await x.data();
    assert.deepEqual(Array.from(host as ArrayLike<unknown>), Array.from(data as ArrayLike<unknown>), dtype);
    if (host instanceof BigInt64Array) host.fill(0n);
    else (host as Uint8Array).fill(0);
    assert.deepEqual(
      Array.from(x.dataSync() as ArrayLike<unknown>),
      Array.from(data as ArrayLike<unknown>),
      `${dtype}: the read was a copy`,
    );
  }
});

/** About 70 GFLOP: a few hundred milliseconds on two cores. */
const longChain = k.jit((x: k.Array) => x.matmul(x).matmul(x).matmul(x).matmul(x).mean(), { name: "long_chain" });
const big = () => k.array(new Float32Array(2048 * 2048).fill(1 / 2048), { shape: [2048, 2048], device: cpu });

test("a long run does not block the event loop: timers fire while it computes", async () => {
  const x = big();
  await longChain(x).ready(); // compile and warm up
  let ticks = 0;
  const timer = setInterval(() => ticks++, 2);
  const t0 = performance.now();
  const y = longChain(x);
  const dispatchMs = performance.now() - t0;
  assert.equal(y.buffer().isReady(), false, "execute returns before the run has finished");
  await y.ready();
  clearInterval(timer);
  const runMs = performance.now() - t0;
  assert.ok(dispatchMs < runMs / 4, `dispatch took ${dispatchMs.toFixed(1)} ms of a ${runMs.toFixed(1)} ms run`);
  assert.ok(ticks >= 3, `only ${ticks} timer ticks during a ${runMs.toFixed(1)} ms run`);
  assert.ok(Math.abs(y.item() - 1 / 2048) < 1e-9);
});

test("synchronous reads block until the run has finished", () => {
  const y = longChain(big());
  assert.equal(y.buffer().isReady(), false);
  assert.ok(Math.abs(y.item() - 1 / 2048) < 1e-9);
  assert.equal(y.buffer().isReady(), true);
});

test("donated inputs are recycled: a steady training-like loop allocates no memory", async () => {
  const step = k.jit(
    (p: { w: k.Array; m: k.Array }, g: k.Array) => {
      const m = p.m.mul(0.9).add(g);
      return { w: p.w.sub(m.mul(0.01)), m };
    },
    { donateArgs: [0], name: "sgd_momentum" },
  );
  let p: { w: k.Array; m: k.Array } = { w: k.array(new Float32Array(4096).fill(1), { device: cpu }), m: k.zeros([4096]) };
  const g = k.array(new Float32Array(4096).fill(1), { device: cpu });
  for (let i = 0; i < 3; i++) p = step(p, g);
  await p.w.ready();
  const pool = ortRuntime().pool;
  const before = pool.nativeAllocations;
  for (let i = 0; i < 20; i++) p = step(p, g);
  await p.w.ready();
  assert.equal(pool.nativeAllocations, before, "steady-state steps took no new memory");
  // m_n = Σ 0.9^i over n = 23 steps; w = 1 - 0.01 Σ m.
  let m = 0,
    w = 1;
  for (let i = 0; i < 23; i++) {
    m = Math.fround(Math.fround(m * 0.9) + 1);
    w = Math.fround(w - Math.fround(m * Math.fround(0.01)));
  }
  assert.ok(Math.abs((p.w.dataSync()[0] as number) - w) < 1e-5);
});

test("a program whose run fails rejects ready with the program's name and ONNX Runtime's message", async () => {
  // take from an empty axis has no element to read: ONNX Runtime refuses the index at run time.
  const x = { id: 1, aval: { shape: [0, 3], dtype: "f32" as const } };
  const idx = { id: 2, aval: { shape: [2], dtype: "i32" as const } };
  const out = { id: 3, aval: { shape: [2, 3], dtype: "f32" as const } };
  const program: Program = {
    name: "take_from_nothing",
    inputs: [x, idx],
    consts: [],
    eqns: [{ prim: "take", inputs: [x, idx], out, params: { axis: 0 } }],
    outputs: [out],
  };
  const exe = k.ortExecutor.compile(program);
  const [y] = exe.execute([
    [k.ortExecutor.fromHost(new Float32Array(0), x.aval), k.ortExecutor.fromHost(Int32Array.of(0, 1), idx.aval)],
  ])[0]!;
  await assert.rejects(y!.ready, /ONNX Runtime failed to run take_from_nothing: .*indices/);
  assert.throws(() => y!.toHostSync(), /take_from_nothing/);

  // The failure is still known after thousands of later runs, read without yielding to the event loop.
  const failed = exe.execute([
    [k.ortExecutor.fromHost(new Float32Array(0), x.aval), k.ortExecutor.fromHost(Int32Array.of(1, 0), idx.aval)],
  ])[0]![0]!;
  const inc = k.jit((a: k.Array) => a.add(1), { name: "inc_many" });
  let c = k.array([0], { device: cpu });
  for (let i = 0; i < 5000; i++) c = inc(c);
  assert.equal(c.item(), 5000);
  assert.throws(() => failed.toHostSync(), /take_from_nothing/);

  // A run that reads the failed output fails too, saying why.
  const negate = k.jit((a: k.Array) => a.neg(), { name: "after_failure" });
  const z = negate(k.Array.fromBuffer(y!));
  await assert.rejects(
    z.ready(),
    /after_failure: an input was computed by a run that failed: ONNX Runtime failed to run take_from_nothing/,
  );
});

test("disposed and donated buffers refuse to be read, with a message saying why", () => {
  const a = k.array([1, 2, 3], { device: cpu });
  const buf = a.buffer();
  a.dispose();
  assert.throws(() => buf.toHostSync(), /was disposed/);
  const f = k.jit((x: k.Array) => x.add(1), { donateArgs: [0], name: "inc" });
  const b = k.array([1, 2], { device: cpu });
  const bb = b.buffer();
  f(b);
  assert.throws(() => bb.toHostSync(), /was donated to inc/);
});

test("a program that returns its inputs and constants runs without a session", () => {
  const f = k.jit((x: k.Array) => [x, k.arange(3)], { name: "passthrough" });
  const [y, r] = f(k.array([5, 6], { device: cpu })) as k.Array[];
  assert.deepEqual(y!.toArray(), [5, 6]);
  assert.deepEqual(r!.toArray(), [0, 1, 2]);
});
