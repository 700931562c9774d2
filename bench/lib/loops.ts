// The loops mode of the compile benchmark: a preset's K-step training program (masking, forward,
// backward, AdamW) traced unrolled and with loops over the steps, the layers or both; its size in the
// IR, in ONNX and in StableHLO, the time to lower it and to compile it (ONNX Runtime's session; XLA's
// CPU plugin with --xla), and the run time of a few executions of a smaller preset.
import * as k from "../../src/index.js";
import { lowerGraph, lowerProgram } from "../../src/exec/ort/lower-program.js";
import type { GraphDef } from "../../src/io/onnx/proto.js";
import { lowerToStableHlo } from "../../src/exec/xla/stablehlo/lower.js";
import { createXlaExecutor } from "../../src/exec/xla/index.js";
import { countEquations, trainStepsProgram } from "../../src/train/step-program.js";
import { createMaskedLM, presetConfig, type MlmConfig } from "../../src/models/index.js";
import { AdamW } from "../../src/optim/adamw.js";
import { makeMultiStep, makeTrainStep, type TrainState } from "../../src/train/train-step.js";
import { maskedLmObjective } from "../../src/train/objectives/mlm.js";
import { median, round } from "./timing.js";

export const LOOP_MODES = {
  unrolled: {},
  "scan-steps": { steps: "scan" },
  "scan-layers": { layers: "scan" },
  "scan-both": { steps: "scan", layers: "scan" },
} as const;
export type LoopMode = keyof typeof LOOP_MODES;

const seconds = (t0: number) => round((performance.now() - t0) / 1000, 3);

/** ONNX nodes, counting those of subgraphs (loop bodies). */
function nodesOf(g: GraphDef): number {
  let n = 0;
  for (const node of g.nodes) {
    n++;
    for (const a of Object.values(node.attrs ?? {})) if (a.kind === "graph") n += nodesOf(a.value);
  }
  return n;
}

export interface LoopCompileOptions {
  model: string;
  steps: number;
  batch: number;
  seq: number;
  mode: LoopMode;
  ort: k.OrtExecutor;
  xla?: k.Executor | undefined;
}

export function compileFigures(o: LoopCompileOptions): Record<string, unknown> {
  let t0 = performance.now();
  const program = trainStepsProgram({ model: o.model, batch: o.batch, seq: o.seq, steps: o.steps, loops: LOOP_MODES[o.mode] });
  const traceS = seconds(t0);
  t0 = performance.now();
  const lowered = lowerProgram(program, 1, o.ort.version());
  const lowerS = seconds(t0);
  const onnxNodes = nodesOf(lowerGraph(program, 1).graph);
  t0 = performance.now();
  o.ort.compile(program).dispose(); // lowering again, then the session
  const ortSessionS = round(seconds(t0) - lowerS, 3);
  t0 = performance.now();
  const hlo = lowerToStableHlo(program).text;
  const hloS = seconds(t0);
  let xlaS: number | undefined;
  if (o.xla) {
    t0 = performance.now();
    o.xla.compile(program).dispose();
    xlaS = round(seconds(t0) - hloS, 3);
  }
  return {
    bench: "compile",
    model: o.model,
    steps_per_execution: o.steps,
    batch: o.batch,
    seq: o.seq,
    loops: o.mode,
    ir_equations: countEquations(program),
    ir_top_level_equations: program.eqns.length,
    onnx_nodes: onnxNodes,
    onnx_bytes: lowered.model.byteLength,
    stablehlo_bytes: Buffer.byteLength(hlo),
    trace_s: traceS,
    lower_s: lowerS,
    ort_session_s: ortSessionS,
    stablehlo_lower_s: hloS,
    ...(xlaS !== undefined ? { xla_compile_s: xlaS } : {}),
  };
}

/** Steps per second of K-step executions of `model` on `device` (median over `execs` executions after one warm-up). */
export async function runtimeFigures(o: {
  model: string;
  steps: number;
  batch: number;
  seq: number;
  mode: LoopMode;
  execs: number;
  device: k.Device;
}): Promise<Record<string, unknown>> {
  const vocab = 8192;
  const config = presetConfig(o.model, { vocabSize: vocab, padId: 3, clsId: 0, sepId: 1 }, o.seq) as MlmConfig;
  const model = createMaskedLM(config);
  const optimizer = new AdamW({ learningRate: 1e-4, weightDecay: 0.01 });
  const dev = o.device;
  const params = k.jit((key: k.Array) => model.init(key), { name: "init", device: dev })(k.randomKey(0));
  let state: TrainState = { params, opt: k.jit((p: unknown) => optimizer.init(p), { name: "opt_init", device: dev })(params) };
  const loops = LOOP_MODES[o.mode] as { steps?: "scan"; layers?: "scan" };
  const fn = k.jit(
    makeMultiStep(
      makeTrainStep({
        objective: maskedLmObjective({ model, masking: { maskTokenId: 4, vocabSize: vocab, specialIds: [0, 1, 2, 3, 4], seed: 2 } }),
        optimizer,
        dropoutSeed: 1,
        ...(loops.layers ? { layerLoop: loops.layers } : {}),
      }),
      loops.steps ?? "unrolled",
    ),
    { name: `steps_${o.mode}`, donateArgs: [0], device: dev },
  );
  const K = o.steps,
    n = K * o.batch * o.seq;
  const ids = Int32Array.from({ length: n }, (_, i) => 5 + ((i * 7919) % (vocab - 5)));
  const inputs = {
    inputIds: k.array(ids, { shape: [K, o.batch, o.seq], device: dev }),
    attentionMask: k.array(new Int32Array(n).fill(1), { shape: [K, o.batch, o.seq], device: dev }),
    exampleOffset: k.array(
      Int32Array.from({ length: K }, (_, i) => i * o.batch),
      { shape: [K], device: dev },
    ),
    epoch: k.array(new Int32Array(K), { shape: [K], device: dev }),
  };
  const times: number[] = [];
  let compileS = 0;
  for (let i = 0; i <= o.execs; i++) {
    const t0 = performance.now();
    const out = fn(state, inputs, k.array(new Int32Array([i * K]), { shape: [], device: dev }));
    state = out.state;
    await out.scalars.data();
    if (i === 0) compileS = fn.metrics.compileMs / 1000;
    else times.push((performance.now() - t0) / 1000);
  }
  return {
    bench: "compile",
    kind: "runtime",
    model: o.model,
    executor: dev.executor.name,
    steps_per_execution: K,
    batch: o.batch,
    seq: o.seq,
    loops: o.mode,
    compile_s: round(compileS, 3),
    steps_per_s: round(K / median(times), 3),
    executions: o.execs,
  };
}

/** XLA's CPU plugin from the project's Python environment, or undefined (with the reason on stderr). */
export function xlaCpuExecutor(): k.Executor | undefined {
  try {
    return createXlaExecutor({ includeCpu: true, cpuDeviceCount: 1 });
  } catch (err) {
    console.error(`compile: no XLA CPU plugin, xla_compile_s left out (${(err as Error).message})`);
    return undefined;
  }
}
