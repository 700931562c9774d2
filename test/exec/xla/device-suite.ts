// The XLA executor on one real PJRT plugin, held to the reference interpreter: every golden program,
// random programs of every primitive (the ONNX Runtime executor's cases, held to the same per-dtype
// tolerances: see test/exec/ort/prim-cases.ts and compare.ts), every dtype's round trip, bf16/f16
// arithmetic, donation, asynchronous dispatch, the plugin's own errors, client options, closing, and an
// MLP trained on both. A process holds one plugin, so each plugin gets its own test file that calls
// deviceSuite().
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import * as k from "../../../src/index.js";
import { XlaExecutor, type PjrtPluginFound } from "../../../src/exec/xla/index.js";
import type { XlaBuffer } from "../../../src/exec/xla/buffer.js";
import { PjrtApi } from "../../../src/exec/xla/pjrt/api.js";
import { PjrtBuffers, PjrtClient } from "../../../src/exec/xla/pjrt/client.js";
import { ClientLife, type XlaRuntime } from "../../../src/exec/xla/runtime.js";
import { PjrtError } from "../../../src/exec/xla/pjrt/errors.js";
import { S } from "../../../src/exec/xla/pjrt/structs.js";
import { lowerToStableHlo } from "../../../src/exec/xla/stablehlo/lower.js";
import { compileOptionsProto } from "../../../src/exec/xla/proto/compile-options.js";
import { loweringCases } from "./lowering-cases.js";
import { CASES } from "../ort/prim-cases.js";
import { mismatch, type Tolerance } from "../ort/compare.js";
import { rng, randn } from "../../helpers/random.js";
import { adamInit, mlpData, mlpInit, trainStep } from "../../helpers/mlp.js";
import { ProgramBuilder } from "../../helpers/program-builder.js";

export interface SuiteTarget {
  /** The plugin, or why there is none (the tests then skip with it, or fail where they must not skip). */
  readonly plugin: PjrtPluginFound | { readonly skip: string };
  /** The platform the plugin's devices must report (an explicit plugin's: whatever its client says). */
  readonly platform?: k.Platform;
  /** The PJRT C API minor version the plugin must report (pinned by the project's Python requirements). */
  readonly apiMinor?: number;
  /** Whether PJRT_Client_Create refuses option names it does not know (newer CPU plugins) or ignores them. */
  readonly rejectsUnknownOptions?: boolean;
  /**
   * CPU plugins: whether a client that reuses memory (cpuReuseMemory, the default) runs programs on the
   * calling thread, as plugins that read the create option `asynchronous` do (jaxlib 0.11's XLA).
   */
  readonly runsOnCallerWhenReusing?: boolean;
  /** Random programs per primitive (half with lazily broadcast operands). */
  readonly casesPerPrim: number;
}

/** Inputs for the golden programs: normal floats, small integers (out-of-range indices too), random bools. */
function randomInput(aval: k.AVal, r: () => number): k.HostArray {
  const n = k.sizeOf(aval.shape);
  if (aval.dtype === "bool")
    return k.fromNumbers(
      "bool",
      Array.from({ length: n }, () => (r() < 0.5 ? 1 : 0)),
    );
  if (k.isFloat(aval.dtype))
    return k.fromNumbers(
      aval.dtype,
      Array.from(randn(r, n), (x) => 2 * x),
    );
  const lo = aval.dtype === "u32" ? 0 : -3;
  return k.fromNumbers(
    aval.dtype,
    Array.from({ length: n }, () => lo + Math.floor(r() * 11)),
  );
}

/** Golden programs: f32 within 1e-5 normwise (they include contractions), f64 1e-13, bf16/f16 1 ulp, the rest exact. */
const GOLDEN_TOLERANCE: Tolerance = { rtol: 1e-5, normwise: true };

async function runOn(executor: k.Executor, program: k.Program, inputs: readonly k.HostArray[]): Promise<k.HostArray[]> {
  const exe = executor.compile(program);
  const outs = exe.execute([inputs.map((d, i) => executor.fromHost(d, program.inputs[i]!.aval))])[0]!;
  const host = await Promise.all(outs.map((b) => b.toHost()));
  outs.forEach((b) => b.dispose());
  exe.dispose();
  return host;
}

/** Forces a full garbage collection (and runs finalizers on the next turns). */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

export function deviceSuite(target: SuiteTarget): void {
  const skip = "skip" in target.plugin ? target.plugin.skip : false;
  const plugin = target.plugin as PjrtPluginFound;
  let executor: XlaExecutor | undefined;
  const xla = () => (executor ??= new XlaExecutor(plugin));
  test.after(() => executor?.close());

  const platform = () => target.platform ?? xla().platform;
  /** XLA's CPU devices are xla-cpu:N (ONNX Runtime's are cpu:N); GPUs and TPUs are gpu:N and tpu:N. */
  const prefix = () => (platform() === "cpu" ? "xla-cpu" : platform());

  test("describe() names the plugin, its PJRT API, XLA and StableHLO versions, and the devices", { skip }, () => {
    const d = xla().describe();
    assert.match(
      d,
      /PJRT C API 0\.\d+, xla_version \d+, StableHLO \d+\.\d+\.\d+ \(accepts from \d+\.\d+\.\d+\)\n  platform \w+ \(version .+\)/,
    );
    assert.equal(xla().platform, platform());
    const devices = xla().devices();
    assert.ok(devices.length > 0);
    devices.forEach((dev, i) => {
      assert.equal(dev.id, `${prefix()}:${i}`);
      assert.equal(dev.platform, platform());
    });
    assert.match(d, new RegExp(`\\n  ${prefix()}:0: `));
    if (target.apiMinor !== undefined) assert.deepEqual(xla().apiVersion, { major: 0, minor: target.apiMinor });
    console.log(d);
  });

  test("its devices are found by name once the executor is registered, apart from ONNX Runtime's cpu:N", { skip }, () => {
    k.registerExecutor(xla());
    const first = xla().devices()[0]!;
    assert.equal(k.findDevice(first.id), first);
    assert.equal(k.findDevice(`xla:${first.id}`), first);
    if (platform() === "cpu") assert.equal(k.findDevice("cpu:0").executor.name, "ort");
    assert.throws(
      () => k.findDevice(`${prefix()}:${xla().devices().length}`),
      new RegExp(`no device "${prefix()}:\\d+"; devices here: .*xla:${prefix()}:0`),
    );
  });

  const optionsSkip = skip || (target.rejectsUnknownOptions === undefined && "how this plugin treats unknown options is not pinned");
  test(
    "client options reach the plugin; an option it does not know is refused or ignored as the plugin decides",
    { skip: optionsSkip },
    () => {
      const create = () => new XlaExecutor(plugin, { clientOptions: { kiln_no_such_option: 1 } });
      if (target.rejectsUnknownOptions)
        assert.throws(
          create,
          /PJRT_Client_Create failed \(INVALID_ARGUMENT\): Unexpected option name passed to PJRT_Client_Create: kiln_no_such_option/,
        );
      else create().close();
    },
  );

  for (const c of loweringCases()) {
    test(`golden program ${c.name} equals the reference interpreter`, { skip }, async () => {
      const devices = xla().devices();
      const replicas = c.options?.replicas ? Math.min(c.options.replicas, devices.length) : 1;
      const r = rng(7);
      const inputs = Array.from({ length: replicas }, () => c.program.inputs.map((v) => randomInput(v.aval, r)));
      const want = k.refExecutor
        .compile(c.program, { replicas })
        .execute(inputs.map((ins) => ins.map((data, i) => k.refExecutor.fromHost(data, c.program.inputs[i]!.aval))));
      const exe = xla().compile(c.program, { replicas, ...(c.options?.donate ? { donate: c.options.donate } : {}) });
      const got = exe.execute(
        inputs.map((ins, rep) => ins.map((data, i) => xla().fromHost(data, c.program.inputs[i]!.aval, devices[rep]))),
      );
      for (let rep = 0; rep < replicas; rep++) {
        for (const [j, out] of got[rep]!.entries()) {
          const dtype = c.program.outputs[j]!.aval.dtype;
          const tol = dtype === "f64" ? { rtol: 1e-13, normwise: true } : GOLDEN_TOLERANCE;
          const bad = mismatch(dtype, await out.toHost(), want[rep]![j]!.toHostSync(), tol);
          assert.equal(bad, undefined, `${c.name} replica ${rep} output ${j} (${dtype})`);
          out.dispose();
        }
      }
      exe.dispose();
    });
  }

  for (const prim of Object.keys(CASES) as k.Prim[]) {
    if (prim === "all_reduce") continue; // one replica here; replicas are the golden all_reduce program's
    test(`random ${prim} programs equal the reference interpreter`, { skip }, async () => {
      const r = rng(0x5eed ^ (prim.length * 7919) ^ (prim.charCodeAt(0) * 104729));
      for (let c = 0; c < target.casesPerPrim; c++) {
        const { program, inputs, tol } = CASES[prim](r, c % 2 === 1);
        const want = await runOn(k.refExecutor, program, inputs);
        const got = await runOn(xla(), program, inputs);
        program.outputs.forEach((v, j) => {
          const bad = mismatch(v.aval.dtype, got[j]!, want[j]!, tol);
          assert.ok(!bad, `${prim} case ${c}: output ${j} (${v.aval.dtype}[${v.aval.shape}]): ${bad}\n${k.printProgram(program)}`);
        });
      }
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

  test("bf16 and f16 arithmetic runs in the narrow type on the device, within rounding of the reference", { skip }, async () => {
    for (const dtype of ["bf16", "f16"] as const) {
      const b = new ProgramBuilder();
      const x = b.input(dtype, [64]),
        y = b.input(dtype, [64]);
      const prod = b.eqn("mul", [x, y], {});
      const sum = b.eqn("add", [prod, x], {});
      const program = b.build(`narrow_${dtype}`, [sum, b.eqn("exp", [x], {})]);
      // The module computes in the narrow type: no widening converts around the arithmetic.
      const text = lowerToStableHlo(program).text;
      assert.doesNotMatch(text, /stablehlo\.convert/);
      assert.match(text, new RegExp(`"stablehlo\\.multiply"\\(.*tensor<64x${dtype}>`));
      const r = rng(11);
      const inputs = program.inputs.map((v) => randomInput(v.aval, r));
      const want = await runOn(k.refExecutor, program, inputs);
      const got = await runOn(xla(), program, inputs);
      // exp(x): one operation, one rounding on either side.
      assert.equal(mismatch(dtype, got[1]!, want[1]!, { rtol: 0, ulps: 1 }), undefined, `${dtype} exp`);
      // x·y + x: XLA's CPU compiler may fuse the multiply into the add and round once where the reference
      // rounds the product first, so under cancellation the two differ by several units of the result's
      // last place. Either way the error is at most one unit in the last place of the largest of x·y, x and the sum.
      const bits = dtype === "bf16" ? 7 : 10;
      const ulp = (v: number) => (v === 0 ? 0 : 2 ** (Math.floor(Math.log2(Math.abs(v))) - bits));
      for (let i = 0; i < 64; i++) {
        const xi = k.readElem(dtype, inputs[0]!, i),
          yi = k.readElem(dtype, inputs[1]!, i);
        const g = k.readElem(dtype, got[0]!, i);
        const bound = ulp(Math.max(Math.abs(xi * yi), Math.abs(xi), Math.abs(xi * yi + xi)));
        assert.ok(Math.abs(g - (xi * yi + xi)) <= bound, `${dtype} x·y + x element ${i}: got ${g}, exact ${xi * yi + xi}, bound ${bound}`);
      }
    }
  });

  test("a donated input is consumed and its memory becomes the output's; a donated loop allocates nothing new", { skip }, async () => {
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
    const [outs] = exe.execute([args]);
    assert.deepEqual(Array.from((await outs![0]!.toHost()) as Float32Array), [0, 0, 0, 0]);
    assert.ok(args[0]!.disposed && args[2]!.disposed && !args[1]!.disposed);
    assert.throws(() => exe.execute([args]), /was disposed or donated/);
    assert.throws(() => args[0]!.toHostSync(), /was disposed \(or donated\)/);
    outs!.forEach((b) => b.dispose());
    args[1]!.dispose();
    exe.dispose();

    // x ← x·0.5 + 1, x donated: the output reuses x's memory, step after step.
    const b = new ProgramBuilder();
    const x = b.input("f32", [1024]);
    const half = b.eqn("mul", [x, b.constant("f32", [1024], new Float32Array(1024).fill(0.5))], {});
    const one = b.constant("f32", [1024], new Float32Array(1024).fill(1));
    const step = xla().compile(b.build("donated_step", [b.eqn("add", [half, one], {})]), { donate: [true] });
    let cur = xla().fromHost(new Float32Array(1024).fill(10), { shape: [1024], dtype: "f32" }) as XlaBuffer;
    await cur.ready;
    const live = xla().liveBuffers();
    const addresses = new Set<bigint>([cur.deviceAddress()]);
    for (let i = 0; i < 50; i++) {
      const before = cur.deviceAddress();
      cur = step.execute([[cur]])[0]![0]! as XlaBuffer;
      await cur.ready;
      assert.equal(cur.deviceAddress(), before, `step ${i}: the output is in the donated input's memory`);
      assert.equal(xla().liveBuffers(), live, `step ${i}: live buffers`);
      addresses.add(cur.deviceAddress());
    }
    assert.equal(addresses.size, 1);
    const final = (await cur.toHost()) as Float32Array;
    assert.ok(Math.abs(final[0]! - 2) < 1e-6, `x converges to 2: ${final[0]}`);
    cur.dispose();
    step.dispose();
  });

  /**
   * A long program on `x`'s first device, compiled, and its input there: long enough to watch on each kind of
   * device, since 24 products of 384² take tens of ms on XLA's CPU plugin but 0.1 ms on an H100/H200, where
   * 4096² ones take about 60 ms (3.3 TFLOP at its f32 rate).
   */
  async function longChain(x: XlaExecutor) {
    const device = x.devices()[0]!;
    const n = device.platform === "cpu" ? 384 : 4096;
    const f = (a: k.Array) => {
      let y = a;
      for (let i = 0; i < 24; i++)
        y = y
          .matmul(y)
          .mul(1 / n)
          .tanh();
      return y;
    };
    const a = k.array(Float32Array.from(randn(rng(5), n * n)), { shape: [n, n], device });
    const program = k.jit(f, { device, name: "long_chain" }).lower(a);
    const exe = x.compile(program);
    const input = x.fromHost(a.dataSync(), program.inputs[0]!.aval, device);
    await input.ready;
    return { exe, input };
  }

  test("execute() returns before a long program finishes, and the event loop runs meanwhile", { skip }, async () => {
    // A CPU client that reuses memory runs programs on the calling thread (the test after this one).
    const cpu = platform() === "cpu";
    const x = cpu ? new XlaExecutor(plugin, { cpuReuseMemory: false }) : xla();
    const { exe, input } = await longChain(x);
    // A first run loads the program onto the device; the timed run that follows only dispatches it.
    const [warm] = exe.execute([[input]])[0]!;
    await warm!.ready;
    warm!.dispose();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const t0 = performance.now();
    const [out] = exe.execute([[input]])[0]!;
    const dispatchMs = performance.now() - t0;
    const pendingAfterDispatch = !out!.isReady();
    await out!.ready;
    const runMs = performance.now() - t0;
    clearInterval(timer);
    assert.ok(pendingAfterDispatch, `the result was ready when execute() returned (dispatch ${dispatchMs.toFixed(1)} ms)`);
    assert.ok(
      ticks >= 2,
      `the 1 ms timer fired ${ticks} times during the ${runMs.toFixed(0)} ms run (dispatch ${dispatchMs.toFixed(1)} ms)`,
    );
    console.log(`long program: dispatch ${dispatchMs.toFixed(1)} ms, run ${runMs.toFixed(0)} ms, ${ticks} timer ticks meanwhile`);
    out!.dispose();
    input.dispose();
    exe.dispose();
    if (cpu) x.close();
  });

  test(
    "a CPU client that reuses memory runs a program on the calling thread: its outputs are ready when execute() returns",
    { skip: skip || (target.runsOnCallerWhenReusing === undefined && "whether this plugin reads the asynchronous option is not pinned") },
    async () => {
      const { exe, input } = await longChain(xla());
      const [out] = exe.execute([[input]])[0]!;
      // Asked of the plugin itself: the executor learns of readiness from a worker thread, later.
      const api = PjrtApi.load(plugin.path, plugin.preload);
      const event = new PjrtBuffers(api).readyEvent((out as XlaBuffer).handle);
      const state = api.call("PJRT_Event_IsReady", S.Event_IsReady, (e) => e.set("event", event));
      const readyAtReturn = state.bool("is_ready");
      state.free();
      api.run("PJRT_Event_Await", S.Event_Await, (e) => e.set("event", event));
      api.run("PJRT_Event_Destroy", S.Event_Destroy, (e) => e.set("event", event));
      assert.equal(readyAtReturn, target.runsOnCallerWhenReusing);
      await out!.ready;
      out!.dispose();
      input.dispose();
      exe.dispose();
    },
  );

  test("the plugin's own message comes back for a program it cannot parse or verify", { skip }, () => {
    const api = PjrtApi.load(plugin.path, plugin.preload);
    api.initialize();
    const client = PjrtClient.create(api, {});
    try {
      const options = compileOptionsProto({ kind: "single" });
      // Syntax error: the MLIR parser's message, with its line and column.
      assert.throws(
        () =>
          client.compile(
            "module {\n  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n    return %a : tensor<2xf32\n  }\n}\n",
            options,
          ),
        (e: unknown) => e instanceof PjrtError && e.fn === "PJRT_Client_Compile" && /expected '>'/.test(e.pluginMessage),
      );
      // Parses, but the StableHLO verifier refuses it: adding tensors of different shapes.
      const bad = [
        "module {",
        "  func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {",
        '    %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>',
        "    return %0 : tensor<2xf32>",
        "  }",
        "}",
      ].join("\n");
      assert.throws(
        () => client.compile(bad, options),
        (e: unknown) => e instanceof PjrtError && /stablehlo\.add/.test(e.pluginMessage) && /shape|compatible|type/i.test(e.pluginMessage),
      );
    } finally {
      client.destroy();
    }
  });

  for (const n of [1, 2, 8]) {
    test(`cpuDeviceCount ${n} gives ${n} devices`, { skip: skip || (target.platform !== "cpu" && "CPU plugins only") }, () => {
      const e = new XlaExecutor(plugin, { cpuDeviceCount: n });
      try {
        assert.deepEqual(
          e.devices().map((d) => d.id),
          Array.from({ length: n }, (_, i) => `${prefix()}:${i}`),
        );
      } finally {
        e.close();
      }
    });
  }

  test("cpuDeviceCount is checked", { skip: skip || (target.platform !== "cpu" && "CPU plugins only") }, () => {
    assert.throws(() => new XlaExecutor(plugin, { cpuDeviceCount: 0 }), /cpuDeviceCount must be a positive integer, got 0/);
  });

  test("close() frees what is alive once; buffers collected afterwards never call into the closed client", { skip }, async () => {
    // Watch the real calls this executor's runtime makes: each PJRT_Buffer_Destroy, and each finalizer's release.
    const e = new XlaExecutor(plugin, platform() === "cpu" ? { cpuDeviceCount: 1 } : {});
    const runtime = (e as unknown as { runtime: XlaRuntime }).runtime;
    const destroyed: bigint[] = [];
    let releases = 0;
    const destroy = PjrtBuffers.prototype.destroy,
      release = ClientLife.prototype.releaseBuffer;
    PjrtBuffers.prototype.destroy = function (this: PjrtBuffers, h: bigint) {
      if (this === runtime.buffers) destroyed.push(h);
      destroy.call(this, h);
    };
    ClientLife.prototype.releaseBuffer = function (this: ClientLife, h: bigint) {
      if (this === runtime.life) releases++;
      release.call(this, h);
    };
    try {
      const aval = { shape: [256], dtype: "f32" as const };
      const kept = e.fromHost(new Float32Array(256).fill(1), aval);
      const program = k.jit((a: k.Array) => a.add(1), { device: e.devices()[0]!, name: "plus_one" }).lower(k.zeros([256]));
      const exe = e.compile(program);
      const out = exe.execute([[kept]])[0]![0]!;
      // Buffers nobody references any more: their finalizers run after close().
      const dropped = () => {
        for (let i = 0; i < 20; i++) e.fromHost(new Float32Array(256).fill(i), aval);
      };
      dropped();
      await out.ready;
      assert.equal(e.liveBuffers(), 22);
      e.close();
      assert.equal(e.liveBuffers(), 0);
      assert.equal(destroyed.length, 22, "close() destroys each live buffer");
      assert.equal(new Set(destroyed).size, 22, "each once");
      assert.ok(e.closed);
      assert.throws(() => kept.toHostSync(), /belonged to a closed XLA executor/);
      assert.throws(() => exe.execute([[kept]]), /its XLA executor was closed/);
      assert.throws(() => e.fromHost(new Float32Array(256), aval), /was closed/);
      kept.dispose();
      out.dispose();
      exe.dispose();
      e.close();
      // `releases` is counted by the finalizers, which run while this loop waits.
      // oxlint-disable-next-line no-unmodified-loop-condition
      for (let round = 0; round < 3 && releases < 20; round++) {
        collectGarbage();
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(releases >= 20, `the dropped buffers' finalizers ran (${releases} releases)`);
      assert.equal(destroyed.length, 22, "no PJRT_Buffer_Destroy after the client was destroyed");
    } finally {
      PjrtBuffers.prototype.destroy = destroy;
      ClientLife.prototype.releaseBuffer = release;
    }
    // The other executor's buffers still work.
    const b = xla().fromHost(new Float32Array([1, 2]), { shape: [2], dtype: "f32" });
    assert.deepEqual(Array.from((await b.toHost()) as Float32Array), [1, 2]);
    b.dispose();
  });

  test("a process that used the plugin exits with status 0", { skip }, () => {
    // Once, koffi closed the plugin before the C exit handlers ran, and every such process crashed on exit.
    const index = new URL("../../../src/exec/xla/index.js", import.meta.url).href;
    const script = `const { XlaExecutor } = await import(${JSON.stringify(index)});
      const x = new XlaExecutor(${JSON.stringify(plugin)});
      const b = x.fromHost(new Float32Array([1, 2]), { shape: [2], dtype: "f32" });
      console.log(Array.from(await b.toHost()).join(","));`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    assert.equal(r.signal, null, `the process died of ${r.signal}: ${r.stderr}`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), "1,2");
  });

  test("an MLP trains on the device as on the reference interpreter (20 steps)", { skip }, () => {
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
    const worst = Math.max(...got.map((l, i) => Math.abs(l - want[i]!) / Math.abs(want[i]!)));
    console.log(
      `MLP: 20 steps, loss ${got[0]!.toFixed(4)} → ${got.at(-1)!.toFixed(4)}, worst relative difference ${worst.toExponential(2)}`,
    );
    got.forEach((l, i) =>
      assert.ok(Math.abs(l - want[i]!) <= 1e-4 * Math.abs(want[i]!), `step ${i}: device loss ${l}, reference ${want[i]}`),
    );
    assert.ok(got.at(-1)! < 0.7 * got[0]!, `the loss falls: ${got[0]} → ${got.at(-1)}`);
  });
}
