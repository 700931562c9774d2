// `npm run bench -- mlp [--iters N] [--threads T]`: one training step of the MLP 784-512-10 (batch
// 128, GELU, cross-entropy, AdamW; parameters and optimizer state donated) through Kiln's jit on the
// CPU executor, vs a raw ONNX Runtime session of the same graph driven by the official binding (each
// step's outputs fed back as the next step's inputs), interleaved in one process.
import * as k from "../src/index.js";
import { adamInit, mlpData, mlpInit, trainStep } from "../test/helpers/mlp.js";
import { benchFlags, interleaved, round } from "./lib/timing.js";
import { benchExecutor, lowered, peerSession, tensor } from "./lib/ort-peer.js";
import type * as ort from "onnxruntime-node";

/** Both contenders read the loss every step, as a training loop would, and it must stay a number. */
function finite(loss: number, who: string): void {
  if (!Number.isFinite(loss)) throw new Error(`mlp bench: ${who}'s loss became ${loss}`);
}

export async function run(args: string[]): Promise<void> {
  const flags = benchFlags(args, { iters: 30 });
  const executor = benchExecutor(flags.threads);
  const device = executor.devices()[0]!;
  const [batch, dIn, hidden, classes] = [128, 784, 512, 10];
  const { x, y } = mlpData(batch, dIn, classes, 0, device);
  let params = mlpInit(dIn, hidden, classes, 1, device);
  let state: ReturnType<typeof adamInit> & { step: k.Array } = {
    ...adamInit(params),
    step: k.array(Float32Array.of(0), { shape: [], device }),
  };
  const lr = k.array(Float32Array.of(1e-3), { shape: [], device });
  const step = k.jit(trainStep, { name: "mlp_step", device, donateArgs: [0, 1] });

  // The peer: the same program's model, fed host copies of the same initial values.
  const program = step.lower(params, state, x, y, lr);
  const lo = lowered(program, executor);
  const session = await peerSession(lo.model, executor.threads);
  let feeds: Record<string, ort.Tensor> = {};
  // Program inputs and outputs are the leaves of the arguments and of the result, in jit's flattening
  // order (leafPaths walks trees the same way): new params and state feed the old ones' inputs.
  const initial = k.flatten([params, state, x, y, lr], (v) => v instanceof k.Array).leaves as k.Array[];
  initial.forEach((a, i) => {
    feeds[lo.inputNames[i]!] = tensor(a.dtype, a.dataSync(), a.shape);
  });
  const inPaths = k.leafPaths([params, state]);
  const outPaths = k.leafPaths({ params, state, loss: 0 });
  const outputName = (path: string) => {
    const s = lo.sources[0]![outPaths.indexOf(path)]!;
    if (s.kind !== "graph") throw new Error(`mlp bench: expected ${path} to be computed by the step`);
    return lo.outputNames[s.index]!;
  };
  const carried = inPaths.map((p) => outputName(p.replace(/^0\./, "params.").replace(/^1\./, "state.")));
  const lossName = outputName("loss");

  const ms = await interleaved(
    {
      kiln: async () => {
        const out = step(params, state, x, y, lr);
        params = out.params;
        state = out.state;
        finite((await out.loss.data())[0] as number, "Kiln");
      },
      ort: async () => {
        const out = await session.run(feeds);
        const next = { ...feeds };
        carried.forEach((name, i) => {
          next[lo.inputNames[i]!] = out[name]!;
        });
        feeds = next;
        finite((out[lossName]!.data as Float32Array)[0]!, "ONNX Runtime's session");
      },
    },
    flags.iters,
  );
  console.log(
    JSON.stringify({
      bench: "mlp",
      layers: [dIn, hidden, classes],
      batch,
      threads: executor.threads,
      onnx_nodes: lo.nodeCount,
      step_ms: round(ms.kiln!),
      ort_step_ms: round(ms.ort!),
      ratio: round(ms.ort! / ms.kiln!),
      iters: flags.iters,
    }),
  );
  await session.release();
}
