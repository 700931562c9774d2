// `npm run bench -- matmul [--iters N] [--threads T]`: f32 matmul through Kiln's jit on the CPU
// executor vs ONNX Runtime's own session on the same model, interleaved in one process.
// One line per shape: GFLOP/s of each and their ratio (Kiln / ORT; the target is ≥ 0.9).
import * as k from "../src/index.js";
import { benchFlags, interleaved, round } from "./lib/timing.js";
import { benchExecutor, lowered, peerSession, tensor } from "./lib/ort-peer.js";

const SHAPES: [number, number, number][] = [
  [1024, 1024, 1024],
  [4096, 768, 3072],
];

export async function run(args: string[]): Promise<void> {
  const flags = benchFlags(args, { iters: 15 });
  const executor = benchExecutor(flags.threads);
  const device = executor.devices()[0]!;
  for (const [m, kk, n] of SHAPES) {
    const aData = Float32Array.from({ length: m * kk }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5);
    const bData = Float32Array.from({ length: kk * n }, (_, i) => ((i * 104729) % 1000) / 1000 - 0.5);
    const a = k.array(aData, { shape: [m, kk], device }),
      b = k.array(bData, { shape: [kk, n], device });
    const mm = k.jit((x: k.Array, y: k.Array) => x.matmul(y), { name: "matmul", device });
    const lo = lowered(mm.lower(a, b), executor);
    const session = await peerSession(lo.model, executor.threads);
    const feeds = { [lo.inputNames[0]!]: tensor("f32", aData, [m, kk]), [lo.inputNames[1]!]: tensor("f32", bData, [kk, n]) };
    const ms = await interleaved(
      {
        kiln: async () => {
          const y = mm(a, b);
          await y.ready();
          y.dispose();
        },
        ort: async () => {
          await session.run(feeds);
        },
      },
      flags.iters,
    );
    const gflop = (2 * m * kk * n) / 1e9;
    console.log(
      JSON.stringify({
        bench: "matmul",
        m,
        k: kk,
        n,
        threads: executor.threads,
        gflops: round(gflop / (ms.kiln! / 1e3), 1),
        ort_gflops: round(gflop / (ms.ort! / 1e3), 1),
        ratio: round(ms.ort! / ms.kiln!),
        kiln_ms: round(ms.kiln!),
        ort_ms: round(ms.ort!),
        iters: flags.iters,
      }),
    );
    await session.release();
  }
}
