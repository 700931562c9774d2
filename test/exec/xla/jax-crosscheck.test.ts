// A check of Kiln's PJRT binding from outside it: the StableHLO Kiln emits for a whole training step
// (the MLP's, and the tiny RoBERTa's MLM step with masking, dropout, AdamW and clipping) is compiled and
// run by jaxlib's own XLA CPU client (test/python/xla_jax_crosscheck.py) on the same inputs, and its
// outputs are compared with Kiln's run of the same program on XLA's CPU plugin, and with the reference.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../../src/index.js";
import { discoverPjrtPlugin, lowerToStableHlo, XlaExecutor } from "../../../src/exec/xla/index.js";
import { createMaskedLM } from "../../../src/models/index.js";
import { AdamW } from "../../../src/optim/adamw.js";
import { makeTrainStep, type TrainState } from "../../../src/train/train-step.js";
import { maskedLmObjective } from "../../../src/train/objectives/mlm.js";
import { mismatch } from "../ort/compare.js";
import { adamInit, mlpData, mlpInit, trainStep } from "../../helpers/mlp.js";
import { pythonSkip, runPython, venvSitePackages } from "../../helpers/python.js";
import { TINY, tinyConfig } from "../../helpers/tiny-training.js";
import { rng } from "../../helpers/random.js";
import { tempDir } from "../../helpers/temp-dir.js";

interface Case {
  readonly name: string;
  readonly program: k.Program;
  readonly donate: readonly boolean[];
  readonly inputs: readonly k.HostArray[];
}

interface JaxAnswer {
  jax: string;
  platform_version: string;
  cases: { outputs: { file: string; dtype: k.DType; shape: number[] }[] }[];
}

const ref = () => k.refExecutor.devices()[0]!;

/** A jitted function lowered at concrete arguments, with those arguments' values as its inputs. */
function lowered(name: string, f: (...args: any[]) => unknown, args: unknown[], donateArgs: number[]): Case {
  const jitted = k.jit(f as (...a: unknown[]) => unknown, { name, device: ref(), donateArgs });
  const program = jitted.lower(...args);
  const leaves = k.leaves<k.Array>(args as k.PyTree<k.Array>);
  assert.equal(leaves.length, program.inputs.length, `${name}: one input per argument leaf`);
  leaves.forEach((a, i) => assert.deepEqual([a.dtype, a.shape], [program.inputs[i]!.aval.dtype, [...program.inputs[i]!.aval.shape]]));
  // The donated arguments' leaves, in order (what jit passes to the executor).
  const donate = args.flatMap((a, i) => k.leaves<k.Array>(a as k.PyTree<k.Array>).map(() => donateArgs.includes(i)));
  return { name, program, donate, inputs: leaves.map((a) => a.dataSync()) };
}

function mlpCase(): Case {
  const d = ref();
  const { x, y } = mlpData(32, 8, 4, 0, d);
  const params = mlpInit(8, 16, 4, 1, d);
  return lowered("mlp_train_step", trainStep, [params, adamInit(params), x, y, k.array([0.03], { shape: [], device: d })], [0, 1]);
}

function mlmCase(): Case {
  const d = ref();
  const model = createMaskedLM(tinyConfig());
  const optimizer = new AdamW({ learningRate: 1e-3, weightDecay: 0.01 });
  const params = k.jit((key: k.Array) => model.init(key), { name: "init", device: d })(k.randomKey(0));
  const state: TrainState = { params, opt: k.jit((p: unknown) => optimizer.init(p), { name: "opt_init", device: d })(params) };
  const r = rng(21);
  const { vocab, length, batch } = TINY;
  const ids = Int32Array.from({ length: batch * length }, (_, i) =>
    i % length === 0 ? 0 : i % length === length - 1 ? 1 : 5 + Math.floor(r() * (vocab - 5)),
  );
  const i32 = (data: Int32Array, shape: number[]) => k.array(data, { shape, device: d });
  const inputs = {
    inputIds: i32(ids, [batch, length]),
    attentionMask: i32(new Int32Array(ids.length).fill(1), [batch, length]),
    exampleOffset: i32(new Int32Array([16]), []),
    epoch: i32(new Int32Array([1]), []),
  };
  const step = makeTrainStep({
    objective: maskedLmObjective({ model, masking: { maskTokenId: 4, vocabSize: vocab, specialIds: [0, 1, 2, 3, 4], seed: 2 } }),
    optimizer,
    clipNorm: 1,
    dropoutSeed: 1,
  });
  return lowered("tiny_roberta_mlm_step", step, [state, inputs, i32(new Int32Array([3]), [])], [0]);
}

function writeCase(dir: string, c: Case): void {
  const text = lowerToStableHlo(c.program, { donate: c.donate }).text;
  writeFileSync(join(dir, "module.mlir"), text);
  const inputs = c.inputs.map((data, i) => {
    writeFileSync(join(dir, `in-${i}.bin`), new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    const { dtype, shape } = c.program.inputs[i]!.aval;
    return { file: `in-${i}.bin`, dtype, shape };
  });
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ module: "module.mlir", inputs }));
}

function readOutput(dir: string, o: { file: string; dtype: k.DType; shape: number[] }): k.HostArray {
  const bytes = readFileSync(join(dir, o.file));
  const copy = new Uint8Array(bytes).buffer;
  return k.viewHost(o.dtype, copy, 0, k.sizeOf(o.shape));
}

async function run(executor: k.Executor, c: Case): Promise<k.HostArray[]> {
  const exe = executor.compile(c.program, { donate: c.donate });
  const outs = exe.execute([c.inputs.map((data, i) => executor.fromHost(data, c.program.inputs[i]!.aval))])[0]!;
  const host = await Promise.all(outs.map((b) => b.toHost()));
  outs.forEach((b) => b.dispose());
  exe.dispose();
  return host;
}

/**
 * Floats: |got - want| ≤ rtol·max|want| + 1e-7. The absolute floor is for outputs that are sums
 * cancelling to nothing (some gradients here are ~1e-15 of pure rounding noise), where any relative
 * tolerance compares noise with noise. Integers and bool: exact.
 */
function close(dtype: k.DType, got: k.HostArray, want: k.HostArray, rtol: number): string | undefined {
  if (!k.isFloat(dtype)) return mismatch(dtype, got, want, { rtol: 0 });
  const g = k.toNumbers(dtype, got),
    w = k.toNumbers(dtype, want);
  const scale = w.reduce((m, v) => (Number.isFinite(v) ? Math.max(m, Math.abs(v)) : m), 0);
  const i = w.findIndex((v, j) => !(Number.isNaN(v) ? Number.isNaN(g[j]!) : Math.abs(g[j]! - v) <= rtol * scale + 1e-7));
  return i < 0 ? undefined : `element ${i}: got ${g[i]}, want ${w[i]} (scale ${scale.toExponential(2)})`;
}

/** The largest |a - b| over the float elements (for the log). */
function maxDiff(dtype: k.DType, a: k.HostArray, b: k.HostArray): number {
  const x = k.toNumbers(dtype, a),
    y = k.toNumbers(dtype, b);
  return x.reduce((m, v, i) => (Number.isNaN(v) && Number.isNaN(y[i]!) ? m : Math.max(m, Math.abs(v - y[i]!))), 0);
}

test("jaxlib's own XLA client runs Kiln's StableHLO for whole training steps as Kiln's binding does", { skip: pythonSkip }, async () => {
  const found = discoverPjrtPlugin({ env: {}, sitePackages: [venvSitePackages()], includeCpu: true });
  assert.ok(!("notFound" in found), JSON.stringify(found));
  const xla = new XlaExecutor(found, { cpuDeviceCount: 1 });
  const root = tempDir("kiln-jax-");
  try {
    const cases = [mlpCase(), mlmCase()];
    const dirs = cases.map((c) => {
      const dir = join(root, c.name);
      mkdirSync(dir);
      writeCase(dir, c);
      return dir;
    });
    const answer = runPython<JaxAnswer>("xla_jax_crosscheck.py", dirs);
    console.log(`jax ${answer.jax} (XLA CPU ${answer.platform_version}) against ${xla.describe().split("\n")[1]!.trim()}`);
    for (const [ci, c] of cases.entries()) {
      let t0 = performance.now();
      const kiln = await run(xla, c);
      const kilnMs = performance.now() - t0;
      t0 = performance.now();
      const want = await run(k.refExecutor, c);
      const refMs = performance.now() - t0;
      const jaxOut = answer.cases[ci]!.outputs;
      assert.equal(jaxOut.length, c.program.outputs.length, `${c.name}: outputs`);
      let worstJax = 0,
        worstRef = 0;
      c.program.outputs.forEach((v, j) => {
        const { dtype, shape } = v.aval;
        assert.deepEqual([jaxOut[j]!.dtype, jaxOut[j]!.shape], [dtype, [...shape]], `${c.name} output ${j}: type`);
        const fromJax = readOutput(dirs[ci]!, jaxOut[j]!);
        // Two builds of XLA's CPU compiler: the same program, fused and vectorized alike or nearly.
        assert.equal(close(dtype, kiln[j]!, fromJax, 1e-5), undefined, `${c.name} output ${j} (${dtype}[${shape}]): Kiln vs jaxlib`);
        assert.equal(close(dtype, kiln[j]!, want[j]!, 1e-4), undefined, `${c.name} output ${j} (${dtype}[${shape}]): Kiln vs reference`);
        if (k.isFloat(dtype)) {
          worstJax = Math.max(worstJax, maxDiff(dtype, kiln[j]!, fromJax));
          worstRef = Math.max(worstRef, maxDiff(dtype, kiln[j]!, want[j]!));
        }
      });
      console.log(
        `${c.name}: ${c.program.outputs.length} outputs; max |Kiln − jaxlib| ${worstJax.toExponential(2)}, ` +
          `max |Kiln − reference| ${worstRef.toExponential(2)} ` +
          `(Kiln compile+run ${kilnMs.toFixed(0)} ms, reference ${refMs.toFixed(0)} ms)`,
      );
    }
  } finally {
    xla.close();
    rmSync(root, { recursive: true, force: true });
  }
});
