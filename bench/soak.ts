// `npm run bench -- soak`: a long run that looks for leaks. It trains mlm-tiny for --steps steps with
// evaluation and checkpoints, then makes --generate-calls calls of text generation (llama-tiny), and
// samples the process's resident memory and the executor's live native buffers and tensor bytes every
// --sample-every steps (or calls), after a garbage collection so that only what is still referenced
// counts. Each sample is a JSON line; each phase ends with one that compares the samples after warm-up
// (the first --warmup fraction): growth from the first of them to the last must stay under --max-growth
// (5%) for resident memory, and the live buffers at the end must be no more than at the start.
//
//   npm run bench -- soak [--steps 20000] [--generate-calls 10000] [--sample-every 0 (auto: 40 samples)]
//                         [--eval-every 500] [--checkpoint-every 1000] [--batch 8] [--max-length 64]
//                         [--warmup 0.2] [--max-growth 0.05] [--threads 2]
//   a quick check: npm run bench -- soak --steps 2000 --generate-calls 1000
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import * as k from "../src/index.js";
import { writeRecords } from "../src/data/tfrecord/files.js";
import { encodeExample } from "../src/data/example/example.js";
import { openDataset } from "../src/data/pipeline/dataset.js";
import { createCausalLM, createMaskedLM, presetConfig, type CausalConfig } from "../src/models/index.js";
import { Trainer } from "../src/train/trainer.js";
import { ModelCheckpoint, type Callback } from "../src/train/callbacks.js";
import { Generator } from "../src/pipelines/generation/generator.js";

const VOCAB = 512;
const SPECIAL = { padId: 3, clsId: 0, sepId: 1, bosId: 0, eosId: 1 };

interface Sample {
  at: number;
  rss: number;
  heap: number;
  heapTotal: number;
  external: number;
  liveBuffers: number;
  liveTensorBytes: number;
  pooledTensorBytes: number;
}

// A full collection before each sample: buffers only the garbage collector would free are not leaks.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

async function sample(at: number): Promise<Sample> {
  gc();
  // Finalizers (buffers freed by collection) run as tasks after the collection: let them run.
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
  const m = process.memoryUsage();
  const native = k.ortExecutor.nativeMemory();
  return {
    at,
    rss: m.rss,
    heap: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    liveBuffers: k.ortExecutor.liveBuffers(),
    liveTensorBytes: native.live,
    pooledTensorBytes: native.pooled,
  };
}

const mb = (x: number) => Number((x / 2 ** 20).toFixed(2));

function printSample(phase: string, unit: string, s: Sample): void {
  console.log(
    JSON.stringify({
      bench: "soak",
      phase,
      [unit]: s.at,
      rss_mb: mb(s.rss),
      heap_mb: mb(s.heap),
      heap_total_mb: mb(s.heapTotal),
      external_mb: mb(s.external),
      live_buffers: s.liveBuffers,
      live_tensor_mb: mb(s.liveTensorBytes),
      pooled_tensor_mb: mb(s.pooledTensorBytes),
    }),
  );
}

/** The phase's verdict: growth from the first sample after warm-up to the last (mean of two at each end, against GC noise). */
function summarize(phase: string, unit: string, samples: Sample[], warmupUntil: number, maxGrowth: number, seconds: number): boolean {
  const after = samples.filter((s) => s.at >= warmupUntil);
  const ends = (f: (s: Sample) => number) => {
    const first = (f(after[0]!) + f(after[Math.min(1, after.length - 1)]!)) / 2;
    const last = (f(after.at(-1)!) + f(after.at(-2) ?? after.at(-1)!)) / 2;
    return { first, last, growth: (last - first) / first };
  };
  const rss = ends((s) => s.rss);
  const heap = ends((s) => s.heap);
  const buffers = after.map((s) => s.liveBuffers);
  const liveGrowth = buffers.at(-1)! - buffers[0]!;
  const ok = rss.growth < maxGrowth && liveGrowth <= 0;
  console.log(
    JSON.stringify({
      bench: "soak",
      phase,
      summary: true,
      [unit]: samples.at(-1)!.at,
      warmup: warmupUntil,
      seconds: Number(seconds.toFixed(1)),
      samples_after_warmup: after.length,
      rss_mb: { first: mb(rss.first), last: mb(rss.last) },
      rss_growth_pct: Number((rss.growth * 100).toFixed(2)),
      heap_growth_pct: Number((heap.growth * 100).toFixed(2)),
      live_buffers: { first: buffers[0], max: Math.max(...buffers), last: buffers.at(-1) },
      max_growth_pct: maxGrowth * 100,
      ok,
    }),
  );
  return ok;
}

/** Shards of random token rows ([CLS] … [SEP], some padded), in data prepare's naming. */
async function writeShards(dir: string, records: number, length: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  let state = 12345;
  const random = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 8) / 2 ** 24;
  const rows = Array.from({ length: records }, () => {
    const len = 8 + Math.floor(random() * (length - 8));
    const ids = Array.from({ length }, (_, p) => (p === 0 ? 0 : p === len - 1 ? 1 : p < len ? 5 + Math.floor(random() * (VOCAB - 5)) : 3));
    return encodeExample({
      input_ids: { kind: "int64", values: ids },
      attention_mask: { kind: "int64", values: ids.map((_, p) => (p < len ? 1 : 0)) },
    });
  });
  await writeRecords(join(dir, `dataset-0-${records}.tfrecord`), rows);
}

export async function run(args: string[]): Promise<void> {
  const { values: v } = parseArgs({
    args,
    options: {
      steps: { type: "string", default: "20000" },
      "generate-calls": { type: "string", default: "10000" },
      "sample-every": { type: "string", default: "0" },
      "eval-every": { type: "string", default: "500" },
      "checkpoint-every": { type: "string", default: "1000" },
      batch: { type: "string", default: "8" },
      "max-length": { type: "string", default: "64" },
      warmup: { type: "string", default: "0.2" },
      "max-growth": { type: "string", default: "0.05" },
      threads: { type: "string", default: "2" },
    },
  });
  const steps = Number(v.steps),
    calls = Number(v["generate-calls"]),
    length = Number(v["max-length"]),
    batch = Number(v.batch),
    warmup = Number(v.warmup),
    maxGrowth = Number(v["max-growth"]);
  process.env.KILN_CPU_THREADS ??= v.threads;
  const every = (n: number) => Number(v["sample-every"]) || Math.max(1, Math.floor(n / 40));
  const dir = mkdtempSync(join(tmpdir(), "kiln-bench-soak-"));
  let ok = true;
  try {
    if (steps > 0) {
      await writeShards(join(dir, "train"), 512, length);
      await writeShards(join(dir, "eval"), 64, length);
      const common = { maxLength: length, batchSize: batch };
      const train = await openDataset({ files: join(dir, "train"), ...common, shuffle: true, seed: 1, epochs: Infinity });
      const evalData = await openDataset({ files: join(dir, "eval"), ...common, shuffle: false });
      const samples: Sample[] = [];
      const sampleEvery = every(steps);
      const sampler: Callback = {
        onStepEnd: async (t) => {
          if (t.globalStep % sampleEvery !== 0 && t.globalStep !== 1) return;
          samples.push(await sample(t.globalStep));
          printSample("train", "step", samples.at(-1)!);
        },
      };
      const trainer = new Trainer({
        outputDir: join(dir, "run"),
        maxSteps: steps,
        seed: 1,
        logEvery: 100,
        evalEvery: Number(v["eval-every"]),
        keepCheckpoints: 2,
        progress: false,
        callbacks: [
          ...(Number(v["checkpoint-every"]) > 0 ? [new ModelCheckpoint({ everySteps: Number(v["checkpoint-every"]) })] : []),
          sampler,
        ],
      });
      const config = presetConfig("mlm-tiny", { vocabSize: VOCAB, ...SPECIAL }, length);
      const started = performance.now();
      await trainer.fit({
        model: createMaskedLM(config as Parameters<typeof createMaskedLM>[0]),
        train,
        eval: evalData,
        optimizer: { learningRate: 1e-3, weightDecay: 0.01, warmupSteps: 100 },
        masking: { maskTokenId: 4, vocabSize: VOCAB, specialIds: [0, 1, 2, 3, 4], mlmProbability: 0.15 },
      });
      ok = summarize("train", "step", samples, Math.ceil(steps * warmup), maxGrowth, (performance.now() - started) / 1000) && ok;
    }
    if (calls > 0) {
      const config = presetConfig("llama-tiny", { vocabSize: VOCAB, ...SPECIAL }, length) as CausalConfig;
      const model = createCausalLM(config);
      const params = k.jit((key: k.Array) => model.init(key))(k.randomKey(0));
      const gen = new Generator(model, params);
      const prompts = [Array.from({ length: 12 }, (_, i) => 5 + ((i * 37) % (VOCAB - 5)))];
      const samples: Sample[] = [];
      const sampleEvery = every(calls);
      const started = performance.now();
      for (let call = 1; call <= calls; call++) {
        // Sampling, with a new seed each call: every call runs the same programs on new values.
        await gen.generate(prompts, { maxNewTokens: 8, seed: call, stopAtEos: false });
        if (call % sampleEvery === 0 || call === 1) {
          samples.push(await sample(call));
          printSample("generate", "call", samples.at(-1)!);
        }
      }
      ok = summarize("generate", "call", samples, Math.ceil(calls * warmup), maxGrowth, (performance.now() - started) / 1000) && ok;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!ok) process.exitCode = 1;
}
