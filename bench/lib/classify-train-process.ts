// The Kiln contender of `npm run bench -- train --task sequence-classification`: fine-tuning steps of a
// BERT classifier of all-MiniLM-L6-v2's shapes (random init) on the batches of FILE (see
// classify-batches.ts), each batch length its own compiled program. A warm-up pass runs every batch (the
// compiles, and each program past its first runs: on ONNX Runtime, a pass right after one run of each
// length timed about 1,150 real tokens/s, and the passes after it about 1,650), then the timed pass runs
// every batch again in order; one JSON line on stdout. The executor is ONNX Runtime, or XLA's CPU plugin
// with `xla` (and the plugin's path, else discovery's).
//   node dist/bench/lib/classify-train-process.js FILE [ort|xla [PLUGIN]]
import { readFileSync } from "node:fs";
import * as k from "../../src/index.js";
import { AdamW } from "../../src/optim/adamw.js";
import { makeTrainStep, type TrainState } from "../../src/train/train-step.js";
import { tokenCounts, type ClassifyBatch, type ClassifyBatchSpec } from "./classify-batches.js";
import { MINILM_SHAPES, minilmClassifier, modelFlops } from "./classify-model.js";
import { measuredMatmulPeak } from "../../src/train/bench-train.js";
import { selectDevices, type CpuExecutorName } from "../../src/distribute/devices.js";

const [file, executor = "ort", pjrtPlugin] = process.argv.slice(2) as [string, CpuExecutorName | undefined, string | undefined];
const spec = JSON.parse(readFileSync(file, "utf8")) as ClassifyBatchSpec & { batches: ClassifyBatch[] };
const device = selectDevices({ accelerator: "cpu", executor, devices: 1, ...(pjrtPlugin ? { pjrtPlugin } : {}) })[0]!;
const { model, objective } = minilmClassifier(spec.vocab);
const optimizer = new AdamW({ learningRate: 5e-5, weightDecay: 0.01 });
const params = k.jit((key: k.Array) => model.init(key), { name: "init", device })(k.randomKey(0, device));
let state: TrainState = { params, opt: k.jit((p: unknown) => optimizer.init(p), { name: "opt_init", device })(params) };
const step = k.jit(makeTrainStep({ objective, optimizer, dropoutSeed: 1 }), { name: "classify_train_step", donateArgs: [0], device });

const scalar = (v: number) => k.array(new Int32Array([v]), { shape: [], device });
const inputs = spec.batches.map((b, i) => {
  const shape = [spec.batch, b.length];
  return {
    inputIds: k.array(Int32Array.from(b.input_ids), { shape, device }),
    attentionMask: k.array(Int32Array.from(b.attention_mask), { shape, device }),
    labels: k.array(Int32Array.from(b.labels), { shape: [spec.batch], device }),
    exampleOffset: scalar(i * spec.batch),
    epoch: scalar(0),
  };
});
let done = 0;
async function run(list: readonly (typeof inputs)[number][]): Promise<number> {
  let loss: k.Array | undefined;
  for (const x of list) {
    const out = step(state, x, scalar(done++));
    state = out.state;
    loss = out.metrics.loss;
  }
  return Number((await loss!.data())[0]);
}

// Warm-up: a whole pass, as the peers do (a run of many epochs spends almost all its steps past these).
const t0 = performance.now();
await run(inputs);
const warmupS = (performance.now() - t0) / 1000;
const t1 = performance.now();
const loss = await run(inputs);
const seconds = (performance.now() - t1) / 1000;
const { real, padded } = tokenCounts(spec.batches, spec.batch);
console.log(
  JSON.stringify({
    contender: "kiln",
    executor: device.executor.name,
    batches: spec.batches.length,
    lengths: [...new Set(spec.batches.map((b) => b.length))].sort((a, b) => a - b),
    seconds: Number(seconds.toFixed(3)),
    tokens_per_s: Math.round(real / seconds),
    padded_tokens_per_s: Math.round(padded / seconds),
    warmup_s: Number(warmupS.toFixed(1)),
    compile_s: Number((step.metrics.compileMs / 1000).toFixed(1)),
    loss: Number(loss.toFixed(4)),
    model_gflops: Number((modelFlops(MINILM_SHAPES, spec.batches, spec.batch) / 1e9).toFixed(1)),
    peak_gflops: Math.round(await measuredMatmulPeak(device)),
  }),
);
