// Section 4 of the device check: training throughput of Kiln on XLA against the peers a Python user runs,
// on the same device, same shapes, same optimizer (AdamW). Per group (task, preset, precision):
//   1. every contender starts (one long-lived process each) and compiles its step at the first batch size,
//      all at once (compile seconds are each contender's own, measured while the others compiled too);
//   2. with several --batches, each one is compiled and timed once, and each contender keeps the batch it
//      ran fastest at;
//   3. --rounds rounds in which the contenders take turns (the order rotating), --steps steps each;
//      the figure is the median over the rounds.
// MFU against the bf16 and f32 matmul peaks PyTorch measures at the start (bench/peers/gpu_matmul_peak.py),
// with the model FLOPs per token of Kiln's count (6 per parameter plus attention's matmuls).
// Writes one JSON line per finished group (and the peaks first) to --out, so that a cut run keeps what it measured.
//
//   node dist/bench/device/throughput.js --platform gpu|cpu --out FILE [--python python3] [--peers DIR]
//        [--groups mlm:roberta-base:bf16-mixed,mlm:roberta-base:32,causal-lm:smollm-135m:bf16-mixed]
//        [--contenders kiln,kiln-head-all,torch-eager,torch-compile,jax] [--batches 64] [--rounds 3]
//        [--steps 20] [--seq 128] [--deadline-s 200] [--group-min-s 60] [--peak-n 8192]
import { spawnSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { median } from "../lib/timing.js";
import { checkPlatform, type CheckPlatform } from "./platform.js";
import { WorkerProcess, type Answer } from "./worker-process.js";

/** The vocabulary each preset is measured with: the peers' 32000 for RoBERTa, SmolLM's own 49152, small ones for the tiny presets. */
const VOCAB: Record<string, number> = { "roberta-base": 32000, "smollm-135m": 49152, "mlm-tiny": 512, "llama-tiny": 512 };

interface Group {
  task: "mlm" | "causal-lm";
  preset: string;
  precision: "32" | "bf16-mixed";
}

interface Contender {
  name: string;
  command: string;
  args: string[];
}

interface Peaks {
  bf16_tflops: number;
  f32_tflops: number;
}

const round = (x: number, d: number) => Number(x.toFixed(d));

function parseGroup(s: string): Group {
  const [task, preset, precision] = s.split(":");
  if ((task !== "mlm" && task !== "causal-lm") || !preset || (precision !== "32" && precision !== "bf16-mixed"))
    throw new Error(`--groups: "${s}" is not TASK:PRESET:PRECISION (TASK mlm or causal-lm, PRECISION 32 or bf16-mixed)`);
  if (!(preset in VOCAB)) throw new Error(`--groups: preset "${preset}" has no vocabulary here; presets: ${Object.keys(VOCAB).join(", ")}`);
  return { task, preset, precision };
}

function contenders(g: Group, o: { platform: CheckPlatform; python: string; peers: string; seq: number; only: string[] }): Contender[] {
  const node = process.execPath;
  const worker = fileURLToPath(new URL("./train-worker.js", import.meta.url));
  const vocab = String(VOCAB[g.preset]);
  const common = ["--preset", g.preset, "--precision", g.precision, "--vocab", vocab, "--seq", String(o.seq)];
  const kiln = (head: string): Contender => ({
    name: head === "all" ? "kiln-head-all" : "kiln",
    command: node,
    args: [worker, "--platform", o.platform, "--task", g.task, "--head", head, ...common],
  });
  const device = ["--device", o.platform === "gpu" ? "cuda" : "cpu"];
  const torch = (mode: string): Contender => ({
    name: `torch-${mode}`,
    command: o.python,
    args: [join(o.peers, g.task === "mlm" ? "gpu_hf_mlm.py" : "gpu_hf_llama.py"), "--mode", mode, ...common, ...device],
  });
  const list =
    g.task === "mlm"
      ? [
          kiln("all"),
          kiln("labelled"),
          torch("eager"),
          torch("compile"),
          { name: "jax", command: o.python, args: [join(o.peers, "gpu_jax_mlm.py"), ...common, ...device] },
        ]
      : [kiln("labelled"), torch("eager"), torch("compile")];
  return list.filter((c) => o.only.includes(c.name));
}

function measurePeaks(python: string, peers: string, platform: CheckPlatform, n: number): Peaks {
  const r = spawnSync(python, [join(peers, "gpu_matmul_peak.py"), "--device", platform === "gpu" ? "cuda" : "cpu", "--n", String(n)], {
    encoding: "utf8",
    timeout: 120_000,
  });
  const line = (r.stdout ?? "").split("\n").find((l) => l.startsWith("{"));
  if (r.status !== 0 || !line)
    throw new Error(`gpu_matmul_peak.py failed (${r.error?.message ?? `exit ${r.status}`}):\n${(r.stderr ?? "").slice(-2000)}`);
  return JSON.parse(line) as Peaks;
}

interface Result {
  name: string;
  batch?: number;
  sweep: Record<string, number>;
  rounds: number[];
  last?: Answer;
  error?: string;
}

async function runGroup(
  g: Group,
  o: {
    platform: CheckPlatform;
    python: string;
    peers: string;
    seq: number;
    only: string[];
    batches: number[];
    rounds: number;
    steps: number;
  },
  peaks: Peaks,
  deadline: number,
): Promise<Record<string, unknown>> {
  const left = () => Math.max(1000, deadline - Date.now());
  const env = {
    ...process.env,
    XLA_PYTHON_CLIENT_PREALLOCATE: "false",
    HF_HUB_OFFLINE: "1",
    TRANSFORMERS_OFFLINE: "1",
    TOKENIZERS_PARALLELISM: "false",
    TF_CPP_MIN_LOG_LEVEL: "2",
    PYTHONPATH: o.peers,
  };
  const cs = contenders(g, o);
  const results = new Map<string, Result>(cs.map((c) => [c.name, { name: c.name, sweep: {}, rounds: [] }]));
  const workers = cs.map((c) => new WorkerProcess(c.name, c.command, c.args, env));
  const live = () => workers.filter((w) => !results.get(w.name)!.error);
  let cut = false;
  const attempt = async (w: WorkerProcess, f: () => Promise<void>) => {
    try {
      await f();
    } catch (e) {
      // A request that ran into the section's deadline was cut, not failed.
      const late = Date.now() >= deadline - 2000;
      cut ||= late;
      results.get(w.name)!.error = late ? `not finished: the section's budget ran out` : (e as Error).message;
      console.error(`[throughput] ${w.name}: ${(e as Error).message}`);
    }
  };
  try {
    await Promise.all(workers.map((w) => attempt(w, async () => void (await w.next(left())))));
    for (const batch of o.batches) {
      // Compile (and warm up) this batch size in every contender at once, then time each alone.
      await Promise.all(live().map((w) => attempt(w, async () => void (await w.request({ batch, steps: 1 }, left())))));
      for (const w of live())
        await attempt(w, async () => {
          const a = await w.request({ batch, steps: o.steps }, left());
          const r = results.get(w.name)!;
          r.sweep[batch] = Number(a.tokens_per_s);
          r.last = a;
        });
    }
    for (const r of results.values()) {
      const best = Object.entries(r.sweep).sort((a, b) => b[1] - a[1])[0];
      if (best) r.batch = Number(best[0]);
    }
    for (let i = 0; i < o.rounds; i++) {
      const turn = live();
      for (let j = 0; j < turn.length; j++) {
        const w = turn[(i + j) % turn.length]!;
        await attempt(w, async () => {
          const r = results.get(w.name)!;
          const a = await w.request({ batch: r.batch, steps: o.steps }, left());
          r.rounds.push(Number(a.tokens_per_s));
          r.last = a;
        });
      }
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }

  const kilnLine = results.get("kiln")?.last ?? results.get("kiln-head-all")?.last;
  const flopsPerToken = kilnLine ? Number(kilnLine.model_flops_per_token) : undefined;
  const peak = g.precision === "bf16-mixed" ? peaks.bf16_tflops : peaks.f32_tflops;
  const rows = [...results.values()].map((r) => {
    const tps = r.rounds.length ? median(r.rounds) : undefined;
    const mfu = (p: number) => (tps && flopsPerToken && p ? round((tps * flopsPerToken) / (p * 1e12), 3) : null);
    return {
      contender: r.name,
      batch: r.batch ?? null,
      tokens_per_s: tps !== undefined ? Math.round(tps) : null,
      rounds: r.rounds.map((x) => Math.round(x)),
      sweep: Object.fromEntries(Object.entries(r.sweep).map(([b, x]) => [b, Math.round(x)])),
      mfu: mfu(peak),
      mfu_vs_bf16_peak: mfu(peaks.bf16_tflops),
      mfu_vs_f32_peak: mfu(peaks.f32_tflops),
      compile_s: r.last ? round(Number(r.last.compile_s), 1) : null,
      peak_memory_gib: r.last && r.last.peak_bytes != null ? round(Number(r.last.peak_bytes) / 2 ** 30, 2) : null,
      ...(r.last?.memory_stats ? { memory_stats: String(r.last.memory_stats) } : {}),
      params: r.last ? Number(r.last.params) : null,
      ...(r.error ? { error: r.error.slice(0, 1500) } : {}),
    };
  });
  const tps = (n: string) => rows.find((r) => r.contender === n)?.tokens_per_s ?? undefined;
  const ratio = (a?: number | null, b?: number | null) => (a && b ? round(a / b, 2) : null);
  const kiln = tps(g.task === "mlm" ? "kiln-head-all" : "kiln");
  const fastestTorch = Math.max(tps("torch-eager") ?? 0, tps("torch-compile") ?? 0) || undefined;
  return {
    kind: "group",
    ...g,
    seq: o.seq,
    vocab: VOCAB[g.preset],
    steps_per_round: o.steps,
    model_flops_per_token: flopsPerToken ?? null,
    contenders: rows,
    // The issue's targets read Kiln with the head on every position (the work the peers do).
    kiln_vs_fastest_torch: ratio(kiln, fastestTorch),
    kiln_vs_torch_compile: ratio(kiln, tps("torch-compile")),
    kiln_vs_jax: ratio(kiln, tps("jax")),
    complete: rows.every((r) => r.tokens_per_s !== null),
    ...(cut ? { cut: "the section's budget ran out before every contender was measured" } : {}),
  };
}

const { values: v } = parseArgs({
  options: {
    platform: { type: "string" },
    out: { type: "string" },
    python: { type: "string", default: "python3" },
    peers: { type: "string", default: fileURLToPath(new URL("../../../bench/peers/", import.meta.url)) },
    groups: { type: "string", default: "mlm:roberta-base:bf16-mixed,mlm:roberta-base:32,causal-lm:smollm-135m:bf16-mixed" },
    contenders: { type: "string", default: "kiln,kiln-head-all,torch-eager,torch-compile,jax" },
    batches: { type: "string", default: "64" },
    rounds: { type: "string", default: "3" },
    steps: { type: "string", default: "20" },
    seq: { type: "string", default: "128" },
    "deadline-s": { type: "string", default: "200" },
    "group-min-s": { type: "string", default: "60" },
    "peak-n": { type: "string", default: "8192" },
  },
});
if (!v.out) throw new Error("--out FILE is required: where the JSON lines go");
const out = v.out;
const platform = checkPlatform(v.platform);
const started = Date.now();
const deadline = started + 1000 * Number(v["deadline-s"]);
const emit = (o: Record<string, unknown>) => {
  appendFileSync(out, JSON.stringify(o) + "\n");
  console.log(JSON.stringify(o));
};
const groups = v.groups.split(",").map(parseGroup);
const peaks = measurePeaks(v.python, v.peers, platform, Number(v["peak-n"]));
emit({ kind: "peaks", ...peaks });
const opts = {
  platform,
  python: v.python,
  peers: v.peers,
  seq: Number(v.seq),
  only: v.contenders.split(","),
  batches: v.batches.split(",").map(Number),
  rounds: Number(v.rounds),
  steps: Number(v.steps),
};
for (const g of groups) {
  const leftS = (deadline - Date.now()) / 1000;
  if (leftS < Number(v["group-min-s"])) {
    emit({
      kind: "group",
      ...g,
      skipped: `not run: ${Math.round(leftS)} s of the section's budget left, a group needs about ${v["group-min-s"]}`,
    });
    continue;
  }
  emit(await runGroup(g, opts, peaks, deadline));
}
