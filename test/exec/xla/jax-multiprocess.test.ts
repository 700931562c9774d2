// The cross-process program checked outside Kiln's binding: Kiln's StableHLO for replicated programs
// (an all_reduce, and a data-parallel MLP training step whose gradients are all-reduced) with Kiln's own
// CompileOptionsProto (num_replicas, the device assignment of global device ids) is run by jaxlib's CPU
// client in 2 Python processes on 127.0.0.1, with jax.distributed.initialize and the gloo collectives
// (test/python/xla_jax_multiprocess.py). Every replica's outputs must equal Kiln's single-process run of
// the same program over as many devices of XLA's CPU plugin (compileGlobal).
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { freePort } from "../../helpers/free-port.js";
import { join } from "node:path";
import * as k from "../../../src/index.js";
import { compileOptionsProto, discoverPjrtPlugin, lowerToStableHlo, XlaExecutor } from "../../../src/exec/xla/index.js";
import { allReduceMean, allReduceSum } from "../../../src/distribute/collectives.js";
import { adamInit, adamStep, mlpData, mlpInit, mlpLoss, type AdamState, type MlpParams } from "../../helpers/mlp.js";
import { ProgramBuilder } from "../../helpers/program-builder.js";
import { pythonScriptPath, pythonSkip, venvPythonPath, venvSitePackages } from "../../helpers/python.js";
import { tempDir } from "../../helpers/temp-dir.js";

interface Case {
  readonly name: string;
  readonly program: k.Program;
  /** inputs[r][i]: replica r's value of input i. */
  readonly inputs: readonly (readonly k.HostArray[])[];
}

interface Output {
  file: string;
  dtype: k.DType;
  shape: number[];
}
interface ProcessAnswer {
  jax: string;
  process: number;
  global_device_ids: number[];
  cases: { replicas: Record<string, Output[]> }[];
}

const ref = () => k.refExecutor.devices()[0]!;

function allReduceCase(replicas: number): Case {
  const b = new ProgramBuilder();
  const x = b.input("f32", [2, 3]),
    n = b.input("i32", [4]);
  const sum = b.eqn("all_reduce", [x], {});
  const program = b.build("all_reduce_across_processes", [sum, b.eqn("mul", [x, sum], {}), b.eqn("all_reduce", [n], {})]);
  const inputs = Array.from({ length: replicas }, (_, r) => [
    Float32Array.from({ length: 6 }, (_, i) => (r + 1) * 0.5 + i),
    Int32Array.from({ length: 4 }, (_, i) => r * 100 + i),
  ]);
  return { name: "all_reduce", program, inputs };
}

/** One data-parallel step: each replica's gradient on its shard of the batch, averaged by all_reduce, then AdamW. */
function mlpCase(replicas: number): Case {
  const d = ref();
  const batch = 32,
    per = batch / replicas;
  const { x, y } = mlpData(batch, 8, 4, 0, d);
  const params = mlpInit(8, 16, 4, 1, d);
  const state = adamInit(params);
  const lr = k.array([0.03], { shape: [], device: d });
  const step = (p: MlpParams, s: AdamState, xs: k.Array, ys: k.Array, rate: k.Array) => {
    const [loss, g] = k.valueAndGrad(mlpLoss)(p, xs, ys) as [k.Array, MlpParams];
    const mean = k.treeMap((gi: k.Array) => allReduceMean(gi, replicas), g);
    return adamStep(p, s, mean, allReduceSum(loss).div(replicas), rate);
  };
  const xShape = [per, 8],
    yShape = [per];
  const program = k
    .jit(step as (...a: unknown[]) => unknown, { name: "mlp_data_parallel_step", device: d })
    .lower(params, state, k.zeros(xShape, "f32"), k.zeros(yShape, "i32"), lr);
  const shared = k.leaves<k.Array>([params, state] as unknown as k.PyTree<k.Array>).map((a) => a.dataSync());
  const xs = x.dataSync() as Float32Array,
    ys = y.dataSync() as Int32Array;
  const inputs = Array.from({ length: replicas }, (_, r) => [
    ...shared,
    xs.slice(r * per * 8, (r + 1) * per * 8),
    ys.slice(r * per, (r + 1) * per),
    lr.dataSync(),
  ]);
  assert.equal(inputs[0]!.length, program.inputs.length);
  return { name: "mlp_data_parallel_step", program, inputs };
}

/** jaxlib's CPU client numbers process p's devices p·2048 + i (the Python side checks it). */
const jaxGlobalIds = (processes: number, local: number) =>
  Array.from({ length: processes * local }, (_, g) => Math.floor(g / local) * 2048 + (g % local));

function writeCase(dir: string, c: Case, deviceIds: number[]): void {
  writeFileSync(join(dir, "module.mlir"), lowerToStableHlo(c.program, { replicas: deviceIds.length }).text);
  writeFileSync(join(dir, "compile-options.bin"), compileOptionsProto({ kind: "replicated", deviceIds }));
  const replicas = c.inputs.map((inputs, r) =>
    inputs.map((data, i) => {
      const file = `in-${r}-${i}.bin`;
      writeFileSync(join(dir, file), new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      const { dtype, shape } = c.program.inputs[i]!.aval;
      return { file, dtype, shape };
    }),
  );
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ module: "module.mlir", compile_options: "compile-options.bin", replicas }));
}

/** Runs the script as `processes` processes at once; each must end with a JSON line within 2 minutes. */
async function runProcesses(processes: number, local: number, dirs: string[]): Promise<ProcessAnswer[]> {
  const port = await freePort();
  return Promise.all(
    Array.from(
      { length: processes },
      (_, p) =>
        new Promise<ProcessAnswer>((resolve, reject) => {
          const child = spawn(
            venvPythonPath(),
            [pythonScriptPath("xla_jax_multiprocess.py"), String(p), String(processes), String(local), String(port), ...dirs],
            {
              env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", TF_CPP_MIN_LOG_LEVEL: "2" },
              timeout: 120_000,
            },
          );
          let out = "",
            err = "";
          child.stdout.on("data", (b: Buffer) => (out += b));
          child.stderr.on("data", (b: Buffer) => (err += b));
          child.on("error", reject);
          child.on("close", (code, signal) => {
            if (code !== 0) return reject(new Error(`process ${p} of ${processes} exited with ${code ?? signal}:\n${err.slice(-3000)}`));
            resolve(JSON.parse(out.trim().split("\n").pop()!) as ProcessAnswer);
          });
        }),
    ),
  );
}

async function kilnRun(c: Case, replicas: number): Promise<k.HostArray[][]> {
  const found = discoverPjrtPlugin({ env: {}, sitePackages: [venvSitePackages()], includeCpu: true });
  assert.ok(!("notFound" in found), JSON.stringify(found));
  const xla = new XlaExecutor(found, { cpuDeviceCount: replicas });
  try {
    const exe = xla.compileGlobal(c.program);
    assert.deepEqual(exe.localReplicas, [...Array(replicas).keys()]);
    const outs = exe.execute(
      xla.devices().map((dev, r) => c.inputs[r]!.map((data, i) => xla.fromHost(data, c.program.inputs[i]!.aval, dev))),
    );
    return await Promise.all(outs.map((o) => Promise.all(o.map((b) => b.toHost()))));
  } finally {
    xla.close();
  }
}

function readOutput(dir: string, o: Output): k.HostArray {
  return k.viewHost(o.dtype, new Uint8Array(readFileSync(join(dir, o.file))).buffer, 0, k.sizeOf(o.shape));
}

for (const [processes, local] of [
  [2, 2],
  [2, 1],
] as const) {
  const replicas = processes * local;
  test(
    `jaxlib's gloo client runs Kiln's StableHLO across ${processes} processes × ${local} devices as Kiln runs it in one`,
    { skip: pythonSkip },
    async () => {
      const root = tempDir("kiln-jax-mp-");
      try {
        const cases = [allReduceCase(replicas), mlpCase(replicas)];
        const ids = jaxGlobalIds(processes, local);
        const dirs = cases.map((c) => {
          const dir = join(root, c.name);
          mkdirSync(dir);
          writeCase(dir, c, ids);
          return dir;
        });
        const t0 = performance.now();
        const answers = await runProcesses(processes, local, dirs);
        const ms = performance.now() - t0;
        assert.deepEqual(answers[0]!.global_device_ids, ids);
        for (const [ci, c] of cases.entries()) {
          const kiln = await kilnRun(c, replicas);
          let worst = 0;
          const seen = new Set<number>();
          for (const a of answers)
            for (const [r, outs] of Object.entries(a.cases[ci]!.replicas)) {
              seen.add(Number(r));
              outs.forEach((o, j) => {
                const { dtype, shape } = c.program.outputs[j]!.aval;
                assert.deepEqual([o.dtype, o.shape], [dtype, [...shape]], `${c.name} replica ${r} output ${j}: type`);
                const fromJax = k.toNumbers(dtype, readOutput(dirs[ci]!, o));
                const mine = k.toNumbers(dtype, kiln[Number(r)]![j]!);
                const scale = Math.max(1e-30, ...mine.map(Math.abs));
                const diff = Math.max(0, ...mine.map((v, i) => Math.abs(v - fromJax[i]!)));
                worst = Math.max(worst, diff / scale);
                // Two builds of XLA's CPU compiler on the same program: equal, or within float rounding.
                assert.ok(diff <= 1e-6 * scale, `${c.name} replica ${r} output ${j}: max |Kiln − jaxlib| ${diff} (scale ${scale})`);
              });
            }
          assert.deepEqual([...seen].sort(), [...Array(replicas).keys()], `${c.name}: every replica ran in one of the processes`);
          console.log(
            `${c.name}: ${replicas} replicas; max relative |Kiln one process − jaxlib ${processes} processes| ${worst.toExponential(2)}`,
          );
        }
        console.log(`jax ${answers[0]!.jax}: ${processes} processes × ${local} devices in ${(ms / 1000).toFixed(1)} s`);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
}
