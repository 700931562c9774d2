// The XLA executor on a real PJRT plugin, held to the reference interpreter: every golden program,
// transfers of every dtype, donation, the plugin's own errors, and an MLP trained on both.
// Skips, saying why, where no plugin is found. All device tests live in this one file, so that a
// single process holds the accelerator.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { createXlaExecutor, discoverPjrtPlugin, type XlaExecutor } from "../../../src/exec/xla/index.js";
import { loweringCases } from "./lowering-cases.js";
import { rng, randn } from "../../helpers/random.js";
import { adamInit, mlpData, mlpInit, trainStep } from "../../helpers/mlp.js";

const found = discoverPjrtPlugin();
const skip = "notFound" in found ? `no PJRT plugin: ${found.notFound}` : false;
// Memory on demand: other test processes may share the device.
const clientOptions = { preallocate: false };
let executor: XlaExecutor | undefined;
const xla = () => (executor ??= createXlaExecutor({ clientOptions }));

function randomInput(aval: k.AVal, r: () => number): k.HostArray {
  const n = k.sizeOf(aval.shape);
  switch (aval.dtype) {
    case "f32":
    case "f64":
    case "bf16":
    case "f16":
      return k.fromNumbers(
        aval.dtype,
        Array.from(randn(r, n), (x) => 2 * x),
      );
    case "bool":
      return k.fromNumbers(
        "bool",
        Array.from({ length: n }, () => (r() < 0.5 ? 1 : 0)),
      );
    case "u32":
      return k.fromNumbers(
        "u32",
        Array.from({ length: n }, () => Math.floor(r() * 8)),
      );
    default:
      return k.fromNumbers(
        aval.dtype,
        Array.from({ length: n }, () => Math.floor(r() * 11) - 3),
      ); // out-of-range indices too
  }
}

const TOLERANCE: Partial<Record<k.DType, { rtol: number; atol: number }>> = {
  f32: { rtol: 2e-5, atol: 2e-6 },
  f64: { rtol: 1e-12, atol: 1e-12 },
  bf16: { rtol: 1e-2, atol: 1e-2 },
  f16: { rtol: 2e-3, atol: 2e-3 },
};

function assertClose(what: string, dtype: k.DType, got: k.HostArray, want: k.HostArray): void {
  const a = k.toNumbers(dtype, got),
    b = k.toNumbers(dtype, want);
  assert.equal(a.length, b.length, `${what}: length`);
  const tol = TOLERANCE[dtype] ?? { rtol: 0, atol: 0 };
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!,
      y = b[i]!;
    if (Number.isNaN(x) && Number.isNaN(y)) continue;
    if (x === y) continue;
    assert.ok(Math.abs(x - y) <= tol.atol + tol.rtol * Math.abs(y), `${what}[${i}]: device ${x}, reference ${y}`);
  }
}

test("describe() names the plugin, its PJRT API, XLA and StableHLO versions, and the devices", { skip }, () => {
  const d = xla().describe();
  assert.match(d, /PJRT C API 0\.\d+, XLA \S+, StableHLO \d+\.\d+\.\d+/);
  assert.ok(xla().devices().length > 0);
  assert.match(d, /(gpu|tpu):0: /);
  console.log(d);
});

for (const c of loweringCases().filter((x) => x.name !== "training_step")) {
  test(`${c.name} on the device equals the reference interpreter`, { skip }, async () => {
    const devices = xla().devices();
    const replicas = c.options?.replicas ? Math.min(c.options.replicas, devices.length) : 1;
    const r = rng(7);
    const inputs = Array.from({ length: replicas }, () => c.program.inputs.map((v) => randomInput(v.aval, r)));
    const want = k.refExecutor
      .compile(c.program, { replicas })
      .execute(inputs.map((ins) => ins.map((data, i) => k.refExecutor.fromHost(data, c.program.inputs[i]!.aval))));
    const exe = xla().compile(c.program, { replicas, ...(c.options?.donate ? { donate: c.options.donate } : {}) });
    const got = exe.execute(inputs.map((ins, rep) => ins.map((data, i) => xla().fromHost(data, c.program.inputs[i]!.aval, devices[rep]))));
    for (let rep = 0; rep < replicas; rep++) {
      for (const [j, out] of got[rep]!.entries()) {
        const dtype = c.program.outputs[j]!.aval.dtype;
        assertClose(`${c.name} replica ${rep} output ${j}`, dtype, await out.toHost(), want[rep]![j]!.toHostSync());
        out.dispose();
      }
    }
    exe.dispose();
  });
}

test("host → device → host is exact for every dtype, synchronously and not", { skip }, async () => {
  const r = rng(3);
  for (const dtype of k.DTYPES) {
    const aval = { shape: [3, 5], dtype };
    const data = randomInput(aval, r);
    const b = xla().fromHost(data, aval);
    assert.deepEqual(await b.toHost(), data, dtype);
    assert.deepEqual(b.toHostSync(), data, dtype);
    b.dispose();
    assert.throws(() => b.toHostSync(), /was disposed/);
  }
});

test("a donated input is consumed; its output holds the result", { skip }, () => {
  const c = loweringCases().find((x) => x.name === "donation")!;
  const exe = xla().compile(c.program, { donate: c.options!.donate! });
  const args = c.program.inputs.map((v) =>
    xla().fromHost(
      k.fromNumbers(
        v.aval.dtype,
        Array.from({ length: k.sizeOf(v.aval.shape) }, (_, i) => i + 1),
      ),
      v.aval,
    ),
  );
  const [out] = exe.execute([args]);
  assert.deepEqual(Array.from(out![0]!.toHostSync() as Float32Array), [0, 0, 0, 0]);
  assert.ok(args[0]!.disposed && args[2]!.disposed && !args[1]!.disposed);
  assert.throws(() => exe.execute([args]), /was disposed or donated/);
});

test("the plugin's own error comes back with its message", { skip }, () => {
  assert.throws(
    () => createXlaExecutor({ clientOptions: { ...clientOptions, kiln_no_such_option: 1 } }),
    /PJRT_Client_Create failed \(\w+\): .*kiln_no_such_option/,
  );
});

test("an MLP trains on the device as on the reference interpreter", { skip }, () => {
  const run = (device: k.Device) => {
    const { x, y } = mlpData(64, 8, 4, 0, device);
    let params = mlpInit(8, 16, 4, 1, device);
    let state = adamInit(params);
    const step = k.jit(trainStep, { device, donateArgs: [0, 1] });
    const lr = k.array([0.03], { shape: [], device });
    const losses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const out = step(params, state, x, y, lr);
      params = out.params;
      state = out.state;
      losses.push(out.loss.item());
    }
    return losses;
  };
  const want = run(k.refExecutor.devices()[0]!),
    got = run(xla().devices()[0]!);
  got.forEach((l, i) =>
    assert.ok(Math.abs(l - want[i]!) <= 1e-3 * Math.abs(want[i]!), `step ${i}: device loss ${l}, reference ${want[i]}`),
  );
  assert.ok(got.at(-1)! < 0.7 * got[0]!, `the loss falls: ${got[0]} → ${got.at(-1)}`);
});
