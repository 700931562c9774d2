// `npm run bench -- train --task sequence-classification`: fine-tuning throughput of a classifier of
// all-MiniLM-L6-v2's shapes on variable-length, length-bucketed batches, Kiln against the loop a
// transformers user writes in PyTorch (eager and torch.compile), all on the same batches in the same
// order (one file, classify-batches.ts). Each contender is a fresh process; they take turns round after
// round, and the figures are medians over the rounds.
//
//   npm run bench -- train --task sequence-classification [--rounds 3] [--examples 512] [--batch 32]
//                          [--max-length 128] [--only kiln,torch-eager,torch-compile]
//                          [--executor ort|xla] [--pjrt-plugin PATH]   (what runs Kiln's steps: by default what
//                                  `kiln train` picks here, the executor probe's choice for this shape, cached
//                                  per machine; or ONNX Runtime, or XLA's CPU plugin, discovery's or PATH)
//
// Lines: {"bench":"train","task":"sequence-classification","round":R,"contender":NAME,...} per run, then one
// per contender with its medians: tokens_per_s (real tokens: attention mask 1) and padded_tokens_per_s
// (what was computed), the ratio to the faster PyTorch contender, and MFU (the model's FLOPs on the padded
// shapes over the best f32 matmul rate Kiln measured on this machine).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { median, round } from "./timing.js";
import { repoRoot, venvPython } from "./python-peer.js";
import { runContender, type ContenderProcess } from "./contender-process.js";
import { makeClassifyBatches, tokenCounts, writeClassifyBatches, type ClassifyBatchSpec } from "./classify-batches.js";
import { MINILM_SHAPES, modelFlops } from "./classify-model.js";
import "../../src/index.js"; // registers the executors the probe compares
import { CPU_EXECUTORS, type CpuExecutorName } from "../../src/distribute/devices.js";
import { classifierConfig } from "../../src/models/classification/config.js";
import { chooseCpuExecution } from "../../src/train/choose-execution.js";

const TASK = "sequence-classification";

export async function runClassifyTrainBench(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      task: { type: "string" },
      rounds: { type: "string", default: "3" },
      examples: { type: "string", default: "512" },
      batch: { type: "string", default: "32" },
      "max-length": { type: "string", default: "128" },
      only: { type: "string" },
      executor: { type: "string" },
      "pjrt-plugin": { type: "string" },
    },
  });
  if (values.executor !== undefined && !(CPU_EXECUTORS as readonly string[]).includes(values.executor))
    throw new Error(`bench train --task ${TASK}: --executor must be ${CPU_EXECUTORS.join(" or ")}, got "${values.executor}"`);
  const spec: ClassifyBatchSpec = {
    examples: Number(values.examples),
    batch: Number(values.batch),
    maxLength: Number(values["max-length"]),
    padTo: 32,
    vocab: MINILM_SHAPES.vocab_size,
    seed: 7,
  };
  for (const [name, v] of Object.entries({
    rounds: values.rounds,
    examples: spec.examples,
    batch: spec.batch,
    "max-length": spec.maxLength,
  }))
    if (!(Number.isInteger(Number(v)) && Number(v) >= 1))
      throw new Error(`bench train --task ${TASK}: --${name} must be a whole number ≥ 1`);
  const executor = (values.executor as CpuExecutorName | undefined) ?? (await probedExecutor(spec, values["pjrt-plugin"]));
  const dir = mkdtempSync(join(tmpdir(), "kiln-bench-classify-"));
  try {
    const file = join(dir, "batches.json");
    const batches = makeClassifyBatches(spec);
    writeClassifyBatches(file, spec, batches);
    const tokens = tokenCounts(batches, spec.batch);
    const flops = modelFlops(MINILM_SHAPES, batches, spec.batch);
    const peer = join(repoRoot, "bench", "peers", "hf_classify_bench_cpu.py");
    const all: ContenderProcess[] = [
      {
        name: "kiln",
        command: process.execPath,
        args: [
          join(repoRoot, "dist", "bench", "lib", "classify-train-process.js"),
          file,
          executor,
          ...(values["pjrt-plugin"] ? [values["pjrt-plugin"]] : []),
        ],
        pick: (l) => l.contender === "kiln",
        // The peers' 2 threads, on any machine.
        env: { KILN_CPU_THREADS: process.env.KILN_CPU_THREADS ?? "2" },
      },
      ...["eager", "compile"].map((mode) => ({
        name: `torch-${mode}`,
        command: venvPython(),
        args: [peer, file, "--modes", mode],
        pick: (l: Record<string, unknown>) => l.contender === `torch-${mode}`,
      })),
    ];
    const only = values.only?.split(",");
    const live = all.filter((c) => !only || only.includes(c.name));
    const runs = new Map<string, Record<string, unknown>[]>(live.map((c) => [c.name, []]));
    const head = { bench: "train", task: TASK };
    for (let r = 1; r <= Number(values.rounds); r++)
      for (const c of live) {
        const line = runContender(c, `train --task ${TASK}`);
        runs.get(c.name)!.push(line);
        console.log(JSON.stringify({ ...head, round: r, ...line }));
      }
    const med = (name: string, key: string) => median(runs.get(name)!.map((l) => Number(l[key])));
    const torch = live.filter((c) => c.name.startsWith("torch-")).map((c) => med(c.name, "tokens_per_s"));
    const fastestTorch = torch.length ? Math.max(...torch) : 0;
    const peak = runs.has("kiln") ? Math.max(...runs.get("kiln")!.map((l) => Number(l.peak_gflops))) : 0;
    for (const c of live) {
      const tps = med(c.name, "tokens_per_s");
      const seconds = med(c.name, "seconds");
      console.log(
        JSON.stringify({
          ...head,
          contender: c.name,
          ...(c.name === "kiln" ? { executor } : {}),
          model: "all-MiniLM-L6-v2 shapes (BERT, 6 × 384, 12 heads, 1536, vocab 30522), random init",
          batches: batches.length,
          batch: spec.batch,
          lengths: [...new Set(batches.map((b) => b.length))].sort((a, b) => a - b),
          real_tokens: tokens.real,
          padded_tokens: tokens.padded,
          tokens_per_s: round(tps, 0),
          padded_tokens_per_s: round(med(c.name, "padded_tokens_per_s"), 0),
          rounds: runs.get(c.name)!.map((l) => Number(l.tokens_per_s)),
          vs_fastest_torch: fastestTorch ? round(tps / fastestTorch, 2) : null,
          mfu: peak ? round(flops / seconds / (peak * 1e9), 3) : null,
          peak_gflops: peak || null,
          model_gflops_per_pass: round(flops / 1e9, 1),
        }),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What `kiln train --task sequence-classification` runs these shapes on here: the executor probe's choice
 * for a two-class classifier of MiniLM's shapes at this batch and length (measured once, then cached).
 */
async function probedExecutor(spec: ClassifyBatchSpec, pjrtPlugin: string | undefined): Promise<CpuExecutorName> {
  const config = classifierConfig(MINILM_SHAPES, "all-MiniLM-L6-v2's shapes", { numLabels: 2 });
  const choice = await chooseCpuExecution({
    config,
    batch: spec.batch,
    maxLength: spec.maxLength,
    ...(pjrtPlugin ? { pjrtPlugin } : {}),
    notice: (line) => console.error(`bench train --task ${TASK}: ${line}`),
  });
  console.error(`bench train --task ${TASK}: ${choice.line}`);
  return choice.executor;
}
