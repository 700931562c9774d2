// `npm run bench -- compile [--nodes N] [--iters N] [--threads T]`: compile time of a generated
// program of about N ONNX nodes (default 5,000): the training step (forward, backward, SGD update) of
// a deep residual MLP with layer norm, as the CPU executor compiles it. Reports the IR → ONNX lowering,
// ONNX Runtime's session creation, their sum, and the official binding's session creation on the same
// model bytes for comparison (medians).
import * as k from "../src/index.js";
import { benchFlags, median, round } from "./lib/timing.js";
import { benchExecutor, lowered, peerSession } from "./lib/ort-peer.js";

const WIDTH = 64;

function deepStep(layers: number) {
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
  const flags = benchFlags(args, { iters: 3 });
  const executor = benchExecutor(flags.threads);
  const device = executor.devices()[0]!;
  const x = k.zeros([8, WIDTH]);
  const programFor = (layers: number) => {
    const ws = Array.from({ length: layers }, () => k.zeros([WIDTH, WIDTH]));
    return k.jit(deepStep(layers), { device }).lower(ws, x);
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
