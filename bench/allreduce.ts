// `npm run bench -- allreduce [--processes N] [--preset NAME] [--iterations K]`: MPI's in-place f32
// all-reduce (sum) across N processes on this machine (osu_allreduce's measure), for message sizes from
// 4 KiB up to a preset's whole gradient, as JSON lines: latency, algorithm bandwidth (bytes / time) and
// bus bandwidth (× 2(N−1)/N, what a ring moves per process).
import { fileURLToPath } from "node:url";
import "../src/index.js";
import * as k from "../src/index.js";
import { currentProcessGroup, joinProcessGroup, processPlace } from "../src/distribute/multi-process.js";
import { benchModel } from "../src/train/bench-train.js";
import { flatGradientLength } from "../src/train/split-step.js";
import { DEFAULT_BUCKET_ELEMENTS } from "../src/train/cross-process-steps.js";
import { mpiRunNode } from "./lib/mpi-run.js";

function take(args: string[], name: string, fallback: string): string {
  const at = args.indexOf(name);
  return at < 0 ? fallback : args[at + 1]!;
}

export async function run(args: string[]): Promise<void> {
  const preset = take(args, "--preset", "mlm-small");
  const iterations = Number(take(args, "--iterations", "20"));
  if (!processPlace()) {
    const n = Number(take(args, "--processes", "2"));
    const main = fileURLToPath(new URL("./main.js", import.meta.url));
    process.stdout.write(mpiRunNode(n, main, ["allreduce", "--preset", preset, "--iterations", String(iterations)]));
    return;
  }
  const group = currentProcessGroup() ?? joinProcessGroup()!;
  const { model } = benchModel({ preset, maxLength: 128 }, 8192);
  const elements = flatGradientLength(k.evalShape((key: k.Array) => model.init(key), k.randomKey(0)));
  const sizes: number[] = [];
  for (let e = 1024; e < elements; e *= 4) sizes.push(e);
  sizes.push(elements);
  for (const count of sizes) {
    const buf = new Float32Array(count).fill(1);
    for (let i = 0; i < 3; i++) await group.comm.allReduceSum(buf);
    await group.comm.barrier();
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) await group.comm.allReduceSum(buf);
    const s = (performance.now() - t0) / 1000 / iterations;
    const bytes = count * 4;
    if (group.rank === 0)
      console.log(
        JSON.stringify({
          bench: "allreduce",
          mpi: group.comm.lib.flavor,
          processes: group.size,
          bytes,
          ...(count === elements ? { gradient_of: preset } : {}),
          latency_us: Number((s * 1e6).toFixed(1)),
          algbw_gbps: Number((bytes / s / 1e9).toFixed(3)),
          busbw_gbps: Number(((bytes / s / 1e9) * ((2 * (group.size - 1)) / group.size)).toFixed(3)),
        }),
      );
  }
  // The whole gradient as the trainer sums it: in buckets of DEFAULT_BUCKET_ELEMENTS, one after another.
  const buf = new Float32Array(elements).fill(1);
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++)
    for (let at = 0; at < elements; at += DEFAULT_BUCKET_ELEMENTS)
      await group.comm.allReduceSum(buf.subarray(at, Math.min(elements, at + DEFAULT_BUCKET_ELEMENTS)));
  const s = (performance.now() - t0) / 1000 / iterations;
  if (group.rank === 0)
    console.log(
      JSON.stringify({
        bench: "allreduce",
        mpi: group.comm.lib.flavor,
        processes: group.size,
        bytes: elements * 4,
        gradient_of: preset,
        bucket_bytes: DEFAULT_BUCKET_ELEMENTS * 4,
        latency_us: Number((s * 1e6).toFixed(1)),
        algbw_gbps: Number(((elements * 4) / s / 1e9).toFixed(3)),
      }),
    );
}
