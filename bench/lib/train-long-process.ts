// One Kiln contender of `npm run bench -- train-long`, in a process of its own so that its peak RSS is
// its own: compiled causal-LM training steps (AdamW, f32) of a preset at one sequence length on the
// default CPU executor, then one JSON line: tokens/s (median timed step) and resident memory (peak-rss.ts):
// once the model and optimizer state were made, the peak through compiling and the warm-up steps, and
// the peak over the timed steps alone (the kernel's high-water mark reset after the warm-up).
//
//   node dist/bench/lib/train-long-process.js PRESET SEQ BATCH BLOCK|none STEPS WARMUP
import * as k from "../../src/index.js";
import { trainBenchSession } from "../../src/train/bench-train.js";
import { peakRssMb, residentMb, resetPeakRss } from "./peak-rss.js";

const [preset, seqArg, batchArg, blockArg, stepsArg, warmupArg] = process.argv.slice(2);
const seq = Number(seqArg),
  batch = Number(batchArg),
  steps = Number(stepsArg),
  warmup = Number(warmupArg);
const block = blockArg === "none" ? undefined : Number(blockArg);

const device = k.getDefaultDevice();
const session = trainBenchSession({
  task: "causal-lm",
  preset: preset!,
  batch,
  maxLength: seq,
  precision: "32",
  device,
  ...(block !== undefined ? { attentionBlockSize: block } : {}),
});
const setupRss = residentMb();
const times: number[] = [];
let loss = NaN,
  warmupPeak = 0;
for (let i = 0; i < warmup + steps; i++) {
  if (i === warmup) {
    warmupPeak = peakRssMb();
    resetPeakRss();
  }
  const r = await session.run(1);
  loss = r.loss;
  if (i >= warmup) times.push(r.seconds);
}
const stepsPeak = peakRssMb();
const sorted = [...times].sort((a, b) => a - b);
const stepS = sorted[sorted.length >> 1]!;
console.log(
  JSON.stringify({
    bench: "train-long-process",
    preset,
    executor: device.executor.name,
    seq,
    batch,
    attention_block_size: block ?? null,
    blockwise: block !== undefined && seq > block,
    tokens_per_s: Math.round((batch * seq) / stepS),
    step_s: Number(stepS.toFixed(4)),
    compile_s: Number(session.compileSeconds.toFixed(2)),
    loss: Number(loss.toFixed(4)),
    rss_setup_mb: setupRss,
    warmup_peak_rss_mb: warmupPeak,
    peak_rss_mb: stepsPeak,
  }),
);
