// `npm run bench -- compile [--nodes N] [--iters N] [--threads T]`: compile time of a generated
// program of about N ONNX nodes (default 5,000): the training step (forward, backward, SGD update) of
// a deep residual MLP with layer norm, as the CPU executor compiles it. Reports the IR → ONNX lowering,
// ONNX Runtime's session creation, their sum, and the official binding's session creation on the same
// model bytes for comparison (medians).
//
// `npm run bench -- compile --loops [MODES] [--model roberta-base] [--steps-per-execution 8] [--xla]
// [--runtime-model mlm-small] [--executions 3]`: the training program of a preset, unrolled and with
// loops (scan-steps, scan-layers, scan-both; MODES a comma list, default all four): program size (IR
// equations, ONNX nodes and bytes, StableHLO bytes) and compile time (lowering, ONNX Runtime session,
// XLA:CPU compile with --xla), one line per mode; then steps/s of each mode on a smaller preset
// (--runtime-only: just those; --executions 0: none).
import { parseArgs } from "node:util";
import * as k from "../src/index.js";
import { benchFlags, median, round } from "./lib/timing.js";
import { benchExecutor, lowered, peerSession } from "./lib/ort-peer.js";
import { compileFigures, LOOP_MODES, runtimeFigures, xlaCpuExecutor, type LoopMode } from "./lib/loops.js";

async function runLoops(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      loops: { type: "string", default: Object.keys(LOOP_MODES).join(",") },
      model: { type: "string", default: "roberta-base" },
      "steps-per-execution": { type: "string", default: "8" },
      batch: { type: "string", default: "8" },
      seq: { type: "string", default: "128" },
      xla: { type: "boolean", default: false },
      threads: { type: "string" },
      "runtime-model": { type: "string", default: "mlm-small" },
      "runtime-batch": { type: "string", default: "8" },
      executions: { type: "string", default: "3" },
      "runtime-only": { type: "boolean", default: false },
    },
    strict: true,
  });
  const modes = (values.loops || Object.keys(LOOP_MODES).join(",")).split(",") as LoopMode[];
  for (const m of modes)
    if (!(m in LOOP_MODES)) throw new Error(`--loops: unknown mode ${m}; modes: ${Object.keys(LOOP_MODES).join(", ")}`);
  const ort = benchExecutor(values.threads ? Number(values.threads) : undefined);
  const xla = values.xla ? xlaCpuExecutor() : undefined;
  const steps = Number(values["steps-per-execution"]),
    seq = Number(values.seq);
  if (!values["runtime-only"])
    for (const mode of modes)
      console.log(JSON.stringify(compileFigures({ model: values.model, steps, batch: Number(values.batch), seq, mode, ort, xla })));
  if (Number(values.executions) > 0)
    for (const mode of modes)
      console.log(
        JSON.stringify(
          await runtimeFigures({
            model: values["runtime-model"],
            steps,
            batch: Number(values["runtime-batch"]),
            seq,
            mode,
            execs: Number(values.executions),
            device: ort.devices()[0]!,
          }),
        ),
      );
}

const WIDTH = 64;

/** The training step of a deep residual MLP (its depth is the number of weights it is given). */
function deepStep() {
  const loss = (ws: k.Array[], x: k.Array) => {
    let h = x;
    for (const w of ws) h = h.add(k.gelu(k.layerNorm(h.matmul(w), null, null)));
    return h.square().mean();
  };
  return (ws: k.Array[], x: k.Array) => {
    const [l, g] = k.valueAndGrad(loss)(ws, x) as [k.Array, k.Array[]];
    return { loss: l, ws: ws.map((w, i) => w.sub(g[i]!.mul(0.01))) };
  };
}

export async function run(args: string[]): Promise<void> {
  const at = args.findIndex((a) => a === "--loops" || a.startsWith("--loops="));
  if (at >= 0) {
    // `--loops` alone (every mode), `--loops MODES` or `--loops=MODES`.
    const rest = [...args];
    if (rest[at] === "--loops")
      rest.splice(
        at,
        rest[at + 1] && !rest[at + 1]!.startsWith("--") ? 1 : 1,
        `--loops=${rest[at + 1] && !rest[at + 1]!.startsWith("--") ? rest.splice(at + 1, 1)[0] : ""}`,
      );
    return runLoops(rest);
  }
  const flags = benchFlags(args, { iters: 3 });
  const executor = benchExecutor(flags.threads);
  const device = executor.devices()[0]!;
  const x = k.zeros([8, WIDTH]);
  const programFor = (layers: number) => {
    const ws = Array.from({ length: layers }, () => k.zeros([WIDTH, WIDTH]));
    return k.jit(deepStep(), { device }).lower(ws, x);
  };
  // Nodes grow linearly with depth: size the program from a one-layer probe.
  const perLayer = lowered(programFor(2), executor).nodeCount - lowered(programFor(1), executor).nodeCount;
  const program = programFor(Math.max(1, Math.round(flags.nodes / perLayer)));

  const lower: number[] = [],
    session: number[] = [],
    total: number[] = [],
    peer: number[] = [];
  let nodes = 0,
    bytes = 0;
  for (let i = 0; i < flags.iters; i++) {
    let t0 = performance.now();
    const lo = lowered(program, executor);
    lower.push(performance.now() - t0);
    nodes = lo.nodeCount;
    bytes = lo.model.byteLength;
    t0 = performance.now();
    executor.compile(program).dispose();
    total.push(performance.now() - t0);
    session.push(total.at(-1)! - lower.at(-1)!);
    t0 = performance.now();
    const s = await peerSession(lo.model, executor.threads);
    peer.push(performance.now() - t0);
    await s.release();
  }
  console.log(
    JSON.stringify({
      bench: "compile",
      onnx_nodes: nodes,
      ir_eqns: program.eqns.length,
      model_bytes: bytes,
      lower_ms: round(median(lower), 1),
      session_ms: round(median(session), 1),
      compile_ms: round(median(total), 1),
      ort_session_ms: round(median(peer), 1),
      iters: flags.iters,
    }),
  );
}
