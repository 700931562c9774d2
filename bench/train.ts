// `npm run bench -- train [flags of kiln bench train]`: the same measurement as `kiln bench train --json`.
// With `--processes N`: the same global batch trained by N MPI processes with one ONNX Runtime thread
// each (gradient program, MPI all-reduce, update) against one process with N threads, as JSON lines,
// the last with the scaling efficiency (N processes' tokens/s over the one process's).
// With `--task sequence-classification`: fine-tuning on variable-length batches against PyTorch (lib/train-classify.ts).
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";
import "../src/index.js";
import { benchCommand } from "../src/cli/commands/bench.js";
import { mpiRunNode } from "./lib/mpi-run.js";
import { TASK_SPECS, taskSpec } from "../src/train/tasks/index.js";
import type { TrainingTask } from "../src/train/objectives/objective.js";
import { runClassifyTrainBench } from "./lib/train-classify.js";

function take(args: string[], name: string, fallback: string): string {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const [, value] = args.splice(at, 2);
  return value!;
}

export async function run(args: string[]): Promise<void> {
  // Fine-tuning a classifier: Kiln against PyTorch on the same length-bucketed batches (lib/train-classify.ts).
  if (args[args.indexOf("--task") + 1] === "sequence-classification" && args.includes("--task")) return runClassifyTrainBench(args);
  if (!args.includes("--processes")) return benchCommand.run(["train", "--json", ...args]);
  const rest = [...args];
  const n = Number(take(rest, "--processes", "2"));
  if (!(Number.isInteger(n) && n >= 2)) throw new Error(`--processes must be a whole number ≥ 2`);
  const task = take(rest, "--task", TASK_SPECS[0]!.name);
  const preset = take(rest, "--preset", taskSpec(task as TrainingTask).benchPreset!);
  const batch = Number(take(rest, "--per-replica-batch-size", "32"));
  const length = take(rest, "--max-length", "128");
  const steps = take(rest, "--steps", "5"),
    warmup = take(rest, "--warmup", "2");
  if (rest.length) throw new Error(`bench train --processes: unknown arguments ${rest.join(" ")}`);
  // One process, N threads, the whole global batch.
  const main = fileURLToPath(new URL("./main.js", import.meta.url));
  const one = spawnSync(
    process.execPath,
    [
      main,
      "train",
      "--task",
      task,
      "--preset",
      preset,
      "--per-replica-batch-size",
      String(batch * n),
      "--max-length",
      length,
      "--steps",
      steps,
      "--warmup",
      warmup,
    ],
    { env: { ...process.env, KILN_CPU_THREADS: String(n) }, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" },
  );
  if (one.status !== 0) throw new Error(`the one-process bench failed (exit ${one.status})`);
  const base = JSON.parse(one.stdout.trim().split("\n").at(-1)!);
  console.log(JSON.stringify({ ...base, processes: 1, threads_per_process: n }));
  // N processes, one thread each, batch/N rows each.
  const worker = fileURLToPath(new URL("./lib/train-process.js", import.meta.url));
  const multi = JSON.parse(
    mpiRunNode(n, worker, [task, preset, String(batch), length, steps, warmup], 1)
      .trim()
      .split("\n")
      .at(-1)!,
  );
  console.log(JSON.stringify(multi));
  console.log(
    JSON.stringify({
      bench: "train",
      summary: "scaling",
      processes: n,
      tokens_per_s_one_process: base.tokens_per_s,
      tokens_per_s_processes: multi.tokens_per_s,
      scaling_efficiency: Number((multi.tokens_per_s / base.tokens_per_s).toFixed(3)),
    }),
  );
}
