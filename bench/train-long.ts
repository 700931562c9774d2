// `npm run bench -- train-long`: the cost of llama-small training as the sequence grows. At each length,
// the same number of tokens per step (batch = tokens / length), three contenders take turns, each a fresh
// process per run (so that its peak memory is its own), round after round; figures are medians.
//
//   npm run bench -- train-long [--seqs 128,512,2048] [--tokens 4096] [--rounds 3] [--block 256]
//                               [--steps 3] [--warmup 2] [--only kiln-ort,kiln-ort-blockwise,torch-eager]
//
// Contenders:
//   kiln-ort            Kiln's compiled step on ONNX Runtime, attention as one [seq × seq] softmax
//   kiln-ort-blockwise  the same with attention_block_size --block (src/nn/blockwise-attention.ts: tiles of
//                       block × block, online softmax, the backward recomputing per query tile); at lengths
//                       ≤ --block the model takes the plain path and this is the plain step again
//   torch-eager         Hugging Face LlamaForCausalLM with attn_implementation "sdpa" (torch's
//                       scaled_dot_product_attention), PyTorch 2.13 on the CPU, 2 threads
//                       (bench/peers/hf_llama_causal_cpu.py)
// Memory is resident memory as Linux counts it (/proc/self/status, bench/lib/peak-rss.ts; the peer reads the
// same files): `peak_rss_mb` the peak over the timed steps (the high-water mark reset after the warm-up,
// so compiling and first-step allocations are left out; it counts the runtime, the model, the optimizer
// state and whatever the runtime keeps between steps), `warmup_peak_rss_mb` the peak through setup,
// compiling and the warm-up steps, `rss_setup_mb` the resident set once the model and optimizer state
// exist, and `step_peak_mb` = peak_rss_mb − rss_setup_mb: what training steps add to the resident set.
// Lines: {"bench":"train-long","round":R,"seq":S,"contender":NAME,...} per run, then per length and contender
// {"bench":"train-long","summary":true,...} with the medians and the ratios to torch-eager and to kiln-ort.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { median, round } from "./lib/timing.js";
import { repoRoot, venvPython } from "./lib/python-peer.js";

interface Contender {
  name: string;
  command: string;
  args: (seq: number, batch: number) => string[];
  missing?: string;
}

interface Run {
  tokens_per_s: number;
  peak_rss_mb: number;
  warmup_peak_rss_mb: number;
  rss_setup_mb: number;
}

function contenders(block: number, steps: number, warmup: number): Contender[] {
  const py = venvPython();
  const kiln = (name: string, blockArg: string): Contender => ({
    name,
    command: process.execPath,
    args: (seq, batch) => [
      // So that the high-water mark is reset after a garbage collection (bench/lib/peak-rss.ts).
      "--expose-gc",
      join(repoRoot, "dist", "bench", "lib", "train-long-process.js"),
      "llama-small",
      String(seq),
      String(batch),
      blockArg,
      String(steps),
      String(warmup),
    ],
  });
  return [
    kiln("kiln-ort", "none"),
    kiln("kiln-ort-blockwise", String(block)),
    {
      name: "torch-eager",
      command: py,
      args: (seq, batch) => [
        join(repoRoot, "bench", "peers", "hf_llama_causal_cpu.py"),
        "--modes",
        "eager",
        "--attn",
        "sdpa",
        "--seq",
        String(seq),
        "--batch",
        String(batch),
        "--steps",
        String(steps),
        "--warmup",
        String(warmup),
      ],
      ...(existsSync(py) ? {} : { missing: `${py} not found: run scripts/setup-python.sh` }),
    },
  ];
}

function runOnce(c: Contender, seq: number, batch: number): Run & Record<string, unknown> {
  const args = c.args(seq, batch);
  const r = spawnSync(c.command, args, {
    encoding: "utf8",
    maxBuffer: 1 << 26,
    env: { ...process.env, HF_HUB_OFFLINE: "1", TRANSFORMERS_OFFLINE: "1", OMP_NUM_THREADS: "2" },
  });
  const line = (r.stdout ?? "")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Run & Record<string, unknown>)
    .at(-1);
  if (r.status !== 0 || !line)
    throw new Error(
      `bench train-long: ${c.name} at seq ${seq} failed (${r.error?.message ?? `exit ${r.status}`}): ${c.command} ${args.join(" ")}\n` +
        (r.stderr ?? "").slice(-2000),
    );
  return line;
}

const ints = (flag: string, v: string) =>
  v.split(",").map((x) => {
    const n = Number(x);
    if (!(Number.isInteger(n) && n > 0)) throw new Error(`bench train-long: --${flag} takes positive whole numbers, got "${x}"`);
    return n;
  });

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      seqs: { type: "string", default: "128,512,2048" },
      tokens: { type: "string", default: "4096" },
      rounds: { type: "string", default: "3" },
      block: { type: "string", default: "256" },
      steps: { type: "string", default: "3" },
      warmup: { type: "string", default: "2" },
      only: { type: "string" },
    },
    strict: true,
  });
  const seqs = ints("seqs", values.seqs);
  const [tokens] = ints("tokens", values.tokens);
  const [rounds] = ints("rounds", values.rounds);
  const [block] = ints("block", values.block);
  const [steps] = ints("steps", values.steps);
  const warmup = Number(values.warmup);
  for (const s of seqs)
    if (tokens! % s !== 0) throw new Error(`bench train-long: --tokens ${tokens} is not a multiple of sequence length ${s}`);
  const only = values.only?.split(",");
  const all = contenders(block!, steps!, warmup).filter((c) => !only || only.includes(c.name));
  for (const c of all.filter((x) => x.missing)) console.log(JSON.stringify({ bench: "train-long", contender: c.name, skipped: c.missing }));
  const live = all.filter((c) => !c.missing);
  const runs = new Map<string, Run[]>();
  const key = (seq: number, name: string) => `${seq} ${name}`;
  for (let r = 1; r <= rounds!; r++)
    for (const seq of seqs)
      for (const c of live) {
        const batch = tokens! / seq;
        const line = runOnce(c, seq, batch);
        if (!runs.has(key(seq, c.name))) runs.set(key(seq, c.name), []);
        runs.get(key(seq, c.name))!.push(line);
        console.log(
          JSON.stringify({
            bench: "train-long",
            round: r,
            seq,
            batch,
            contender: c.name,
            tokens_per_s: Math.round(line.tokens_per_s),
            peak_rss_mb: line.peak_rss_mb,
            warmup_peak_rss_mb: line.warmup_peak_rss_mb,
            rss_setup_mb: line.rss_setup_mb,
            ...(line.blockwise !== undefined ? { blockwise: line.blockwise } : {}),
          }),
        );
      }
  for (const seq of seqs) {
    const med = (name: string, f: (r: Run) => number) => {
      const xs = runs.get(key(seq, name));
      return xs ? median(xs.map(f)) : null;
    };
    for (const c of live) {
      const tps = med(c.name, (r) => r.tokens_per_s)!,
        peak = med(c.name, (r) => r.peak_rss_mb)!,
        setup = med(c.name, (r) => r.rss_setup_mb)!,
        warm = med(c.name, (r) => r.warmup_peak_rss_mb)!;
      const ratio = (other: string, f: (r: Run) => number, mine: number) => {
        const o = med(other, f);
        return o ? round(mine / o, 2) : null;
      };
      console.log(
        JSON.stringify({
          bench: "train-long",
          summary: true,
          seq,
          batch: tokens! / seq,
          tokens_per_step: tokens,
          contender: c.name,
          ...(c.name === "kiln-ort-blockwise" ? { attention_block_size: block, blockwise: seq > block! } : {}),
          tokens_per_s: Math.round(tps),
          peak_rss_mb: peak,
          warmup_peak_rss_mb: warm,
          rss_setup_mb: setup,
          step_peak_mb: peak - setup,
          tokens_per_s_vs_torch_eager: ratio("torch-eager", (r) => r.tokens_per_s, tps),
          tokens_per_s_vs_kiln_ort: ratio("kiln-ort", (r) => r.tokens_per_s, tps),
          peak_rss_vs_torch_eager: ratio("torch-eager", (r) => r.peak_rss_mb, peak),
          peak_rss_vs_kiln_ort: ratio("kiln-ort", (r) => r.peak_rss_mb, peak),
          rounds: runs.get(key(seq, c.name))!.map((r) => Math.round(r.tokens_per_s)),
        }),
      );
    }
  }
}
