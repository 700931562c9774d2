// The training-throughput benchmark: compiled MLM or causal-LM steps on synthetic token batches
// (uniform random ids, no padding, as the PyTorch peer scripts use), tokens/s as the median of timed
// steps after warm-up, compile time apart, and MFU against the device's measured matmul peak.
import * as k from "../core/index.js";
import { presetConfig, createModel, modelSpec, type ModelConfig } from "../models/index.js";
import type { LanguageModel } from "../models/language-model.js";
import { AdamW } from "../optim/adamw.js";
import { precisionPolicy, type PrecisionName } from "../optim/precision.js";
import { makeTrainStep, type TrainState } from "./train-step.js";
import type { TrainingObjective, TrainingTask } from "./objectives/objective.js";
import { TASK_SPECS, taskSpec } from "./tasks/index.js";
import { checkTaskSettings } from "./trainer-options-check.js";

export interface TrainBenchOptions {
  /** The task whose step is timed (default: the first of TASK_SPECS, the masked LM); the preset must be one of its. */
  task?: TrainingTask;
  preset: string;
  batch: number;
  maxLength: number;
  precision: PrecisionName;
  steps: number;
  warmup: number;
  device: k.Device;
  /** The vocabulary head on the labelled positions only (Kiln's default), or on every position, as the peers compute it. */
  head?: "labelled" | "all";
  /** Vocabulary size (default: 8192 for the CPU presets mlm-small, llama-small and gpt2-small, 32000 otherwise, as the peers use). */
  vocab?: number;
  /** A Llama preset's attention_block_size (blockwise attention above that length); default: the preset's (none). */
  attentionBlockSize?: number;
}

export interface TrainBenchResult {
  bench: "train";
  task: TrainingTask;
  preset: string;
  /** The executor that ran it: "ort" or "xla". */
  executor: string;
  device: string;
  precision: string;
  /** MLM: the vocabulary head on the labelled positions or on all; a causal LM's head runs on every position but the last. */
  head: "labelled" | "all";
  batch: number;
  seq: number;
  params: number;
  tokens_per_s: number;
  /** The same figure under the name the causal-LM peer comparison reads. */
  tokens_per_second: number;
  step_s: number;
  compile_s: number;
  mfu: number;
  peak_gflops: number;
  model_gflops_per_step: number;
  /** Matmul FLOPs the compiled step actually executes (the vocabulary head runs on labelled positions only). */
  executed_matmul_gflops_per_step: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** The best f32 matmul rate the device reaches (GFLOP/s, 1024³, best of 20), the denominator of MFU. */
export async function measuredMatmulPeak(device: k.Device, dtype: k.DType = "f32"): Promise<number> {
  const n = 1024;
  // Made on the device, so that the timed calls copy nothing.
  const ones = k.jit(() => k.ones([n, n], dtype), { name: "peak_ones", device });
  const a = ones(),
    b = ones();
  const mm = k.jit((x: k.Array, y: k.Array) => x.matmul(y), { name: "peak_matmul", device });
  let best = 0;
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await mm(a, b).ready();
    const s = (performance.now() - t0) / 1000;
    if (i > 0) best = Math.max(best, (2 * n ** 3) / s / 1e9);
  }
  return best;
}

const CPU_PRESETS = ["mlm-small", "llama-small", "gpt2-small"];

/** The benchmarked model and the objective it trains with (the peers' special ids: cls/bos 0, sep/eos 1, pad 3, mask 4). */
export function benchModel(
  o: Pick<TrainBenchOptions, "task" | "preset" | "maxLength" | "head" | "attentionBlockSize">,
  vocab: number,
): { config: ModelConfig; model: LanguageModel; objective: TrainingObjective } {
  const ids = { vocabSize: vocab, padId: 3, clsId: 0, sepId: 1 };
  const spec = taskSpec(o.task ?? TASK_SPECS[0]!.name);
  checkTaskSettings(spec.name, { head: o.head }, "benchTrain");
  const preset = presetConfig(o.preset, ids, o.maxLength);
  // Blockwise attention (a causal family's attention_block_size) where the bench asks for it.
  const config = o.attentionBlockSize !== undefined ? ({ ...preset, attention_block_size: o.attentionBlockSize } as ModelConfig) : preset;
  const model = createModel(config);
  if (!spec.accepts(model)) throw new Error(`benchTrain: preset ${o.preset} is not ${spec.kind}, which task "${spec.name}" trains`);
  const objective = spec.objective(model, {
    ...(spec.usesMasking ? { masking: { maskTokenId: 4, vocabSize: vocab, specialIds: [0, 1, 2, 3, 4], seed: 2 } } : {}),
    ...(o.head !== undefined ? { labelledPositionsOnly: o.head === "labelled" } : {}),
  });
  return { config, model, objective };
}

/** Layers and width of either kind of config, for the attention FLOPs. */
function depthAndWidth(c: ModelConfig): { layers: number; width: number } {
  return modelSpec(c).layersAndWidth(c);
}

/** A compiled training step on synthetic batches, ready to be timed as often as wanted (`kiln bench train` and the device check). */
export interface TrainBenchSession {
  /** Runs `n` steps back to back and waits for the last loss: the seconds they took and that loss. */
  run(n: number): Promise<{ seconds: number; loss: number }>;
  /** Seconds spent compiling the step (0 until the first run). */
  readonly compileSeconds: number;
  readonly params: number;
  /** Model FLOPs per step: 6 per parameter per token plus attention's score and context matmuls (the peers' convention). */
  readonly modelFlopsPerStep: number;
  /** Matmul FLOPs the compiled step actually executes (the MLM head may run on labelled positions only). */
  executedMatmulFlops(): number;
}

/** Builds the model, optimizer state and synthetic batch of `o` on its device; nothing is compiled until the first run. */
export function trainBenchSession(o: Omit<TrainBenchOptions, "steps" | "warmup">): TrainBenchSession {
  const vocab = o.vocab ?? (CPU_PRESETS.includes(o.preset) ? 8192 : 32000);
  const { config, model, objective } = benchModel(o, vocab);
  const policy = precisionPolicy(o.precision);
  const optimizer = new AdamW({ learningRate: 1e-4, weightDecay: 0.01 });
  const dev = o.device;
  const params0 = k.jit((key: k.Array) => model.init(key), { name: "init", device: dev })(k.randomKey(0, dev));
  let state: TrainState = { params: params0, opt: k.jit((p: unknown) => optimizer.init(p), { name: "opt_init", device: dev })(params0) };
  if (policy.paramDtype !== "f32") state.params = k.treeMap((p: k.Array) => p.astype(policy.paramDtype), state.params);
  const step = k.jit(
    makeTrainStep({
      objective,
      optimizer,
      computeDtype: policy.computeDtype,
      dropoutSeed: 1,
    }),
    { name: "bench_train_step", donateArgs: [0], device: dev },
  );

  const ids = new Int32Array(o.batch * o.maxLength);
  let seed = 12345;
  for (let i = 0; i < ids.length; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    ids[i] = 5 + (seed % (vocab - 5));
  }
  const shape: [number, number] = [o.batch, o.maxLength];
  const inputs = {
    inputIds: k.array(ids, { shape, device: dev }),
    attentionMask: k.array(new Int32Array(ids.length).fill(1), { shape, device: dev }),
    exampleOffset: k.array(new Int32Array([0]), { shape: [], device: dev }),
    epoch: k.array(new Int32Array([0]), { shape: [], device: dev }),
  };
  const stepIndex = (i: number) => k.array(new Int32Array([i]), { shape: [], device: dev });
  const nParams = k.leaves<k.Array>(params0).reduce((n, p) => n + p.size, 0);
  const { layers, width } = depthAndWidth(config);
  let done = 0;
  return {
    async run(n) {
      const t0 = performance.now();
      let loss: k.Array | undefined;
      for (let i = 0; i < n; i++) {
        const out = step(state, inputs, stepIndex(done++));
        state = out.state;
        loss = out.metrics.loss;
      }
      const value = loss ? (await loss.data())[0]! : NaN;
      return { seconds: (performance.now() - t0) / 1000, loss: Number(value) };
    },
    get compileSeconds() {
      return step.metrics.compileMs / 1000;
    },
    params: nParams,
    modelFlopsPerStep: 6 * nParams * o.batch * o.maxLength + 12 * layers * o.batch * o.maxLength ** 2 * width,
    executedMatmulFlops: () => matmulFlops(step.lower(state, inputs, stepIndex(0))),
  };
}

export async function benchTrain(o: TrainBenchOptions): Promise<TrainBenchResult> {
  const spec = taskSpec(o.task ?? TASK_SPECS[0]!.name);
  const dev = o.device;
  const session = trainBenchSession(o);
  const peak = await measuredMatmulPeak(dev);
  const times: number[] = [];
  let compileS = 0;
  for (let i = 0; i < o.warmup + o.steps; i++) {
    const { seconds } = await session.run(1);
    if (i === 0) compileS = session.compileSeconds;
    if (i >= o.warmup) times.push(seconds);
  }
  const stepS = median(times);
  const tokens = o.batch * o.maxLength;
  const flops = session.modelFlopsPerStep;
  return {
    bench: "train",
    task: spec.name,
    preset: o.preset,
    executor: dev.executor.name,
    device: dev.id,
    precision: o.precision,
    // A task that does not size its head (a causal LM) predicts at every position.
    head: spec.ownSettings?.head !== undefined ? (o.head ?? "labelled") : "all",
    batch: o.batch,
    seq: o.maxLength,
    params: session.params,
    tokens_per_s: Math.round(tokens / stepS),
    tokens_per_second: Math.round(tokens / stepS),
    step_s: Number(stepS.toFixed(4)),
    compile_s: Number(compileS.toFixed(2)),
    mfu: Number((flops / stepS / (peak * 1e9)).toFixed(3)),
    peak_gflops: Math.round(peak),
    model_gflops_per_step: Number((flops / 1e9).toFixed(1)),
    executed_matmul_gflops_per_step: Number((session.executedMatmulFlops() / 1e9).toFixed(1)),
  };
}

/** FLOPs of every dot_general in a program (2·batch·M·N·K each): what the compiled step really multiplies. */
function matmulFlops(p: k.Program): number {
  let total = 0;
  for (const e of p.eqns) {
    if (e.prim !== "dot_general") continue;
    const lhs = e.inputs[0]!.aval.shape;
    const params = e.params as k.PrimParams["dot_general"];
    const contracted = params.lhsContract.reduce((n, d) => n * lhs[d]!, 1);
    total += 2 * e.out.aval.shape.reduce((a, b) => a * b, 1) * contracted;
  }
  return total;
}
