// `kiln devices`' part on the executor probe: the cached choices for this machine (always), and with
// --probe a new measurement of one shape (a preset at a vocabulary, batch and sequence length), which
// replaces the cached one that `kiln train` reads for the same shape.
import { join } from "node:path";
import { presetConfig } from "../../models/index.js";
import type { PrecisionName } from "../../optim/precision.js";
import { chooseCpuExecution, describeProbeEntry } from "../../train/choose-execution.js";
import { defaultProbeCacheDir, kilnPackageVersion, machineKey, PROBE_CACHE_FILE, readProbeCache } from "../../train/probe-cache.js";

/** The flags of `kiln devices --probe`, for its table. */
export const PROBE_FLAGS = {
  probe: {
    type: "bool",
    help:
      "measure which CPU executor (and, with --precision auto, precision) trains --preset fastest here,\n" +
      "and cache it for `kiln train` (replacing the cached result for that shape)",
  },
  preset: { type: "string", value: "NAME", default: "mlm-small", help: "--probe: the model preset" },
  "vocab-size": { type: "int", min: 6, default: 8192, help: "--probe: the vocabulary (your tokenizer's, to match its runs)" },
  "batch-size": { type: "int", min: 1, default: 8, help: "--probe: records per step (kiln train's --per-replica-batch-size)" },
  "max-length": { type: "int", min: 1, default: 128, help: "--probe: tokens per record" },
  precision: {
    type: "enum",
    values: ["32", "bf16-mixed", "auto"],
    default: "32",
    help: "--probe: 32 (kiln train's default) | bf16-mixed | auto (32 or bf16-mixed, whichever is faster)",
  },
} as const;

/** What --probe was given. */
export interface ProbeRequest {
  preset: string;
  vocabSize: number;
  batch: number;
  maxLength: number;
  precision: PrecisionName | "auto";
  pjrtPlugin: string | undefined;
}

/** Probes one shape again and prints the choice. */
export async function probeAgain(r: ProbeRequest): Promise<void> {
  const config = presetConfig(r.preset, { vocabSize: r.vocabSize, padId: 1, clsId: 0, sepId: 2 }, r.maxLength);
  const choice = await chooseCpuExecution({
    config,
    batch: r.batch,
    maxLength: r.maxLength,
    precision: r.precision,
    refresh: true,
    ...(r.pjrtPlugin ? { pjrtPlugin: r.pjrtPlugin } : {}),
  });
  console.log(`probe: ${choice.line}`);
}

/** The cache's entries for this machine and Kiln version, one line each. */
export async function printProbeCache(): Promise<void> {
  const path = join(defaultProbeCacheDir(), PROBE_CACHE_FILE);
  const { entries, problem } = await readProbeCache(path);
  if (problem) {
    console.log(`executor probes: ${problem} (the next probe replaces it)`);
    return;
  }
  const { cpu, cores } = machineKey();
  const kiln = kilnPackageVersion();
  const here = entries.filter((e) => e.key.cpu === cpu && e.key.cores === cores && e.key.kiln === kiln);
  console.log(
    `executor probes for ${cpu}, ${cores} cores, Kiln ${kiln}: ${here.length} cached in ${path}` +
      (here.length ? "" : " (`kiln train` probes at its first run of a shape; `kiln devices --probe` does now)"),
  );
  for (const e of here) console.log(`  ${describeProbeEntry(e)}`);
}
