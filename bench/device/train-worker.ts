// Kiln's contender in the device check's throughput section: `kiln bench train`'s compiled step
// (src/train/bench-train.ts) kept alive in one process, speaking bench/peers/gpu_worker.py's line protocol:
// each stdin line {"batch": B, "steps": N} runs N steps at batch B (the first at a batch also compiles and
// warms up, timed apart) and answers one JSON line; end of input ends it.
//
//   node dist/bench/device/train-worker.js --platform gpu|cpu --task mlm|causal-lm --preset NAME
//        --precision 32|bf16-mixed --vocab N --seq 128 [--head labelled|all]
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import * as k from "../../src/index.js";
import { trainBenchSession, type TrainBenchSession } from "../../src/train/bench-train.js";
import type { PrecisionName } from "../../src/optim/precision.js";
import { taskSpec } from "../../src/train/tasks/index.js";
import type { TrainingTask } from "../../src/train/objectives/objective.js";
import { checkPlatform, memoryFigures, xlaDevice } from "./platform.js";

const { values: v } = parseArgs({
  options: {
    platform: { type: "string" },
    task: { type: "string", default: "mlm" },
    preset: { type: "string" },
    precision: { type: "string", default: "32" },
    vocab: { type: "string" },
    seq: { type: "string", default: "128" },
    head: { type: "string", default: "labelled" },
  },
});
const { device, executor } = xlaDevice(checkPlatform(v.platform));
// Whatever is made without naming a device (initializer keys, constants) lands there too: the bundle that
// carries this worker to a GPU machine has no ONNX Runtime.
k.setDefaultDevice(device);
const name = v.task === "mlm" && v.head === "all" ? "kiln-head-all" : "kiln";
const seq = Number(v.seq);
const sessions = new Map<number, { session: TrainBenchSession; compileS: number }>();
const say = (o: Record<string, unknown>) => process.stdout.write(JSON.stringify({ worker: name, ...o }) + "\n");

async function answer(batch: number, steps: number): Promise<void> {
  let s = sessions.get(batch);
  if (!s) {
    const session = trainBenchSession({
      task: v.task as TrainingTask,
      preset: v.preset!,
      precision: v.precision as PrecisionName,
      device,
      batch,
      maxLength: seq,
      // The vocabulary head's setting is a masked LM's own; another task refuses it.
      ...(taskSpec(v.task as TrainingTask).usesMasking ? { head: v.head as "labelled" | "all" } : {}),
      ...(v.vocab ? { vocab: Number(v.vocab) } : {}),
    });
    await session.run(1); // compiles
    await session.run(2); // warm
    s = { session, compileS: session.compileSeconds };
    sessions.set(batch, s);
  }
  const { seconds, loss } = await s.session.run(steps);
  const { stats, unavailable } = memoryFigures(executor, device);
  say({
    batch,
    steps,
    seconds,
    tokens_per_s: (batch * seq * steps) / seconds,
    compile_s: s.compileS,
    // PJRT_Device_MemoryStats: the allocator's peak where the plugin keeps one (CUDA), else nothing (XLA's CPU).
    peak_bytes: stats?.peakBytesInUse ?? null,
    ...(unavailable ? { memory_stats: unavailable } : {}),
    loss,
    params: s.session.params,
    model_flops_per_token: s.session.modelFlopsPerStep / (batch * seq),
  });
}

say({ ready: true });
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const req = JSON.parse(line) as { batch?: number; steps?: number; exit?: boolean };
  if (req.exit) break;
  await answer(Number(req.batch), Number(req.steps));
}
executor.close();
