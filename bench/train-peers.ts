// `npm run bench -- train-peers`: Kiln's training step against the peers a Python user would run, each
// contender a fresh process, taking turns round after round so that all see the same machine; figures are
// medians over the rounds.
//
//   npm run bench -- train-peers [--task mlm|causal-lm] [--preset mlm-small|roberta-base|llama-small]
//                                [--precision 32|bf16-mixed] [--rounds 3] [--only NAME,NAME...]
//                                [--pjrt-plugin PATH]   (the XLA CPU plugin kiln-xla runs on; default: discovery's)
//
// Contenders (a missing peer is reported with the reason and left out):
//   mlm:       kiln-ort, kiln-xla (Kiln's default head: labelled positions only), torch-eager, torch-compile (HF
//              RobertaForMaskedLM, head on every position), torch-eager-labelled, torch-compile-labelled (the same
//              work as Kiln), jax (../shared/peers/jax_mlm_cpu.py), torch-1.13 (Debian's, ../shared/peers/torch_mlm_cpu.py)
//   causal-lm: kiln-ort, kiln-xla, torch-eager, torch-compile (HF LlamaForCausalLM, bench/peers/hf_llama_causal_cpu.py)
// Lines: {"bench":"train-peers","round":R,"contender":NAME,"tokens_per_s":X} per run, then one summary line
// per contender with its median, its ratio to the fastest full-work and equal-work peers, and MFU against the
// highest f32 matmul peak Kiln measured on this machine.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { median, round } from "./lib/timing.js";
import { repoRoot, venvPython } from "./lib/python-peer.js";
import { taskSpec } from "../src/train/tasks/index.js";
import type { TrainingTask } from "../src/train/objectives/objective.js";
import { runContender } from "./lib/contender-process.js";

const sharedPeers = join(repoRoot, "..", "shared", "peers");

interface Contender {
  name: string;
  /** "kiln", or which peer work it does: "full" (head on every position) or "equal" (Kiln's work). */
  kind: "kiln" | "full" | "equal";
  command: string;
  args: string[];
  /** Which JSON line of the output is this contender's (a peer script may print one per mode). */
  pick: (line: Record<string, unknown>) => boolean;
  /** Why it cannot run here, if it cannot. */
  missing?: string;
}

function contenders(task: string, preset: string, precision: string, pjrtPlugin?: string): Contender[] {
  const bf16 = precision === "bf16-mixed";
  const py = venvPython();
  const noVenv = existsSync(py) ? undefined : `${py} not found: run scripts/setup-python.sh`;
  const kiln = (executor: string): Contender => ({
    name: `kiln-${executor}`,
    kind: "kiln",
    command: process.execPath,
    args: [join(repoRoot, "dist", "src", "cli", "main.js"), "bench", "train", "--json", "--task", task, "--preset", preset].concat([
      "--precision",
      precision,
      "--accelerator",
      "cpu",
      "--executor",
      executor,
      // The peers' batch: 32 sequences of mlm-small and llama-small, 8 of roberta-base.
      "--per-replica-batch-size",
      preset === "roberta-base" ? "8" : "32",
    ]),
    pick: (l) => l.bench === "train",
  });
  const xla = kiln("xla");
  if (pjrtPlugin) xla.args.push("--pjrt-plugin", pjrtPlugin);
  const list: Contender[] = [kiln("ort"), xla];
  if (task === "causal-lm") {
    const script = join(repoRoot, "bench", "peers", "hf_llama_causal_cpu.py");
    for (const mode of ["eager", "compile"])
      list.push({
        name: `torch-${mode}`,
        kind: "full",
        command: py,
        args: [script, "--modes", mode, "--precision", bf16 ? "bf16" : "f32"],
        pick: (l) => l.mode === mode,
        ...(noVenv ? { missing: noVenv } : {}),
      });
    return list;
  }
  const hf = join(repoRoot, "bench", "peers", "hf_torch_mlm_cpu.py");
  for (const labelled of [false, true])
    for (const mode of ["eager", "compile"])
      list.push({
        name: `torch-${mode}${labelled ? "-labelled" : ""}`,
        kind: labelled ? "equal" : "full",
        command: py,
        args: [hf, "--preset", preset, "--modes", mode, "--precision", bf16 ? "bf16" : "f32", ...(labelled ? ["--labelled-head"] : [])],
        pick: (l) => l.mode === mode,
        ...(noVenv ? { missing: noVenv } : {}),
      });
  const jax = join(sharedPeers, "jax_mlm_cpu.py");
  list.push({
    name: "jax",
    kind: "full",
    command: py,
    args: [jax, "--preset", preset, "--dtype", bf16 ? "bf16" : "f32"],
    pick: (l) => l.peer === "jax",
    ...(noVenv ? { missing: noVenv } : existsSync(jax) ? {} : { missing: `${jax} not found` }),
  });
  const old = join(sharedPeers, "torch_mlm_cpu.py");
  const debianTorch = spawnSync("/usr/bin/python3", ["-c", "import torch"], { encoding: "utf8" }).status === 0;
  list.push({
    name: "torch-1.13",
    kind: "full",
    command: "/usr/bin/python3",
    args: [old, "2", preset === "roberta-base" ? "base" : "small"],
    pick: (l) => l.peer === "torch",
    ...(bf16
      ? { missing: "the PyTorch 1.13 reference runs f32 only" }
      : !existsSync(old)
        ? { missing: `${old} not found` }
        : debianTorch
          ? {}
          : { missing: "Debian's PyTorch is not installed (apt-get install python3-torch libopenblas0-pthread)" }),
  });
  return list;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      task: { type: "string", default: "mlm" },
      preset: { type: "string" },
      precision: { type: "string", default: "32" },
      "pjrt-plugin": { type: "string" },
      rounds: { type: "string", default: "3" },
      only: { type: "string" },
    },
  });
  const task = values.task;
  const preset = values.preset ?? taskSpec(task as TrainingTask).benchPreset!;
  const only = values.only?.split(",");
  const all = contenders(task, preset, values.precision, values["pjrt-plugin"]).filter((c) => !only || only.includes(c.name));
  for (const c of all.filter((x) => x.missing))
    console.log(JSON.stringify({ bench: "train-peers", contender: c.name, skipped: c.missing }));
  const live = all.filter((c) => !c.missing);
  const rates = new Map<string, number[]>(live.map((c) => [c.name, []]));
  const kilnLines = new Map<string, Record<string, unknown>>();
  for (let r = 1; r <= Number(values.rounds); r++)
    for (const c of live) {
      const line = runContender(c, "train-peers");
      const tps = Number(line.tokens_per_s);
      rates.get(c.name)!.push(tps);
      if (c.kind === "kiln") kilnLines.set(c.name, line);
      console.log(JSON.stringify({ bench: "train-peers", round: r, contender: c.name, tokens_per_s: round(tps, 0) }));
    }
  const med = new Map([...rates].map(([n, xs]) => [n, median(xs)]));
  const fastest = (kind: Contender["kind"]) => Math.max(0, ...live.filter((c) => c.kind === kind).map((c) => med.get(c.name)!));
  const full = fastest("full"),
    equal = fastest("equal");
  // MFU of every contender against one figure: the highest f32 matmul rate Kiln measured here, and the
  // model FLOPs per token of Kiln's own count (the same model on every side).
  const peak = Math.max(0, ...[...kilnLines.values()].map((l) => Number(l.peak_gflops)));
  const anyKiln = [...kilnLines.values()][0];
  const flopsPerToken = anyKiln ? (Number(anyKiln.model_gflops_per_step) * 1e9) / (Number(anyKiln.batch) * Number(anyKiln.seq)) : 0;
  for (const c of live) {
    const tps = med.get(c.name)!;
    console.log(
      JSON.stringify({
        bench: "train-peers",
        task,
        preset,
        precision: values.precision,
        contender: c.name,
        work: c.kind === "kiln" ? "kiln" : c.kind,
        tokens_per_s: round(tps, 0),
        rounds: rates.get(c.name)!.map((x) => round(x, 0)),
        vs_fastest_full_peer: full ? round(tps / full, 2) : null,
        vs_fastest_equal_peer: equal ? round(tps / equal, 2) : null,
        mfu: peak && flopsPerToken ? round((tps * flopsPerToken) / (peak * 1e9), 3) : null,
        peak_gflops: peak || null,
        // Every contender's malloc settings (glibc.malloc.hugetlb=1 speeds up XLA's and torch's CPU steps).
        glibc_tunables: process.env.GLIBC_TUNABLES ?? null,
      }),
    );
  }
}
