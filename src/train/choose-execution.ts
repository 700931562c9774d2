// Who runs the CPU, and in which precision, chosen by measurement on this machine: the candidates
// (ONNX Runtime; XLA on its CPU plugin where one is found; for precision "auto", f32 and bf16-mixed
// wherever 16-bit arithmetic is not emulated) are timed by a probe (execution-probe.ts) at the first
// run of a shape, and the result is kept in a per-user cache (probe-cache.ts) for the next ones. The
// default (ONNX Runtime, f32 for "auto") stays unless another candidate is clearly faster.
import { join } from "node:path";
import * as k from "../core/index.js";
import { OptionError, describeValue } from "../core/option-error.js";
import { CPU_EXECUTORS, selectDevices, xlaCpuPluginFile, type CpuExecutorName } from "../distribute/devices.js";
import { PRECISIONS, precisionPolicy, type PrecisionName } from "../optim/precision.js";
import type { ModelConfig } from "../models/index.js";
import {
  describeProbeShape,
  probeExecutions,
  probeShape,
  probeShapeClass,
  type CandidateTiming,
  type ExecutionCandidate,
  type ProbeBudget,
} from "./execution-probe.js";
import {
  defaultProbeCacheDir,
  findProbeEntry,
  kilnPackageVersion,
  machineKey,
  machineLoad,
  probedWhileBusy,
  pluginIdentity,
  PROBE_CACHE_FILE,
  readProbeCache,
  storeProbeEntry,
  type ProbeEntry,
  type ProbeKey,
} from "./probe-cache.js";

/** A candidate must be this much faster than the default to replace it (a smaller gap is within a shared machine's noise). */
export const PROBE_MARGIN = 1.05;

/** Options of chooseCpuExecution: the run's shape, what may vary, and where the result is kept. */
export interface CpuExecutionOptions {
  /** The run's model config (sized to its tokenizer). */
  config: ModelConfig;
  /** Records per replica and step (the probe cuts the batch to at most 1024 tokens). */
  batch: number;
  /** Tokens per record. */
  maxLength: number;
  /** A precision to train in, or "auto" (default "32"): f32 or bf16-mixed, whichever measures faster. */
  precision?: PrecisionName | "auto";
  /** The executors to choose among (default every CPU executor here: "ort", and "xla" where a CPU plugin is found). */
  executors?: readonly CpuExecutorName[];
  /**
   * The run's CPU devices (default 1): an XLA client is made with this many (its count is fixed when
   * made), so the run reuses the probe's; the probe itself runs one replica on the first.
   */
  devices?: number;
  /** XLA's CPU plugin (default: KILN_PJRT_PLUGIN, else the xla-cpu-pjrt wheel's). */
  pjrtPlugin?: string;
  /** The directory of the probe cache (default $XDG_CACHE_HOME/kiln, else ~/.cache/kiln). */
  cacheDir?: string;
  /** Probe again even when the cache has a result. */
  refresh?: boolean;
  /** How long the timed rounds may take (compiles apart). */
  budget?: ProbeBudget;
  /** Where warnings go (a damaged or unwritable cache, bf16 slower than f32); default stderr, after "kiln: ". */
  notice?: (line: string) => void;
}

/** The choice, why, and where it is kept. */
export interface CpuExecutionChoice {
  executor: CpuExecutorName;
  precision: PrecisionName;
  /** Every candidate's measurement (one entry, with no timing, when there was nothing to choose between). */
  timings: readonly CandidateTiming[];
  /** When the timings were measured (ISO 8601); absent when nothing was measured. */
  probedAt?: string;
  /** Whether the timings came from the cache. */
  fromCache: boolean;
  cachePath: string;
  /** One line saying what runs and why. */
  line: string;
}

/** The candidates a request allows on the executors found here; `emulated` is asked only for precision "auto". */
function candidatesFor(
  precision: PrecisionName | "auto",
  names: readonly CpuExecutorName[],
  emulated: (name: CpuExecutorName) => boolean,
): ExecutionCandidate[] {
  const wanted: PrecisionName[] = precision === "auto" ? ["32", "bf16-mixed"] : [precision];
  const out: ExecutionCandidate[] = [];
  for (const name of names) {
    const emulates = precision === "auto" && emulated(name);
    for (const p of wanted) {
      // An emulated 16-bit precision is only a candidate when asked for by name (it is never faster than f32).
      if (emulates && precisionPolicy(p).computeDtype !== "f32") continue;
      out.push({ executor: name, precision: p });
    }
  }
  return out;
}

function checkOptions(o: CpuExecutionOptions): void {
  const where = "chooseCpuExecution";
  if (o.precision !== undefined && o.precision !== "auto" && !PRECISIONS.includes(o.precision))
    throw new OptionError({ option: "precision", value: o.precision, why: `must be one of ${[...PRECISIONS, "auto"].join(", ")}`, where });
  for (const e of o.executors ?? [])
    if (!CPU_EXECUTORS.includes(e))
      throw new OptionError({
        option: "executors",
        value: o.executors,
        why: `holds ${describeValue(e)}: each must be ${CPU_EXECUTORS.join(" or ")}`,
        where,
      });
  if (o.executors && o.executors.length === 0)
    throw new OptionError({
      option: "executors",
      value: o.executors,
      why: "is empty",
      fix: "Leave it out to choose among every CPU executor",
      where,
    });
  for (const [option, n] of [
    ["batch", o.batch],
    ["maxLength", o.maxLength],
    ["devices", o.devices ?? 1],
  ] as const)
    if (!Number.isInteger(n) || n < 1) throw new OptionError({ option, value: n, why: "must be a positive integer", where });
}

/**
 * Chooses who runs the CPU and in which precision for a run of `config`, by the cached probe of this
 * machine or a new one; an executor that cannot run here is left out, and with one candidate nothing is timed.
 */
export async function chooseCpuExecution(o: CpuExecutionOptions): Promise<CpuExecutionChoice> {
  checkOptions(o);
  const notice = o.notice ?? ((line: string) => console.error(`kiln: ${line}`));
  const precision = o.precision ?? "32";
  const wantedNames = o.executors ?? CPU_EXECUTORS;
  const cachePath = join(o.cacheDir ?? defaultProbeCacheDir(), PROBE_CACHE_FILE);
  // Each executor's first device, its client made as the run will make it (the run reuses it).
  const deviceOf = (c: { executor: CpuExecutorName }) =>
    selectDevices({
      accelerator: "cpu",
      executor: c.executor,
      devices: o.devices ?? 1,
      ...(o.pjrtPlugin ? { pjrtPlugin: o.pjrtPlugin } : {}),
    })[0]!;
  // XLA's plugin is loaded only where something needs it: a probe, or precision "auto" (which asks whether
  // it emulates bf16). A run whose choice is cached loads nothing it may not use: a client costs 0.1–0.2 s
  // and its threads, and the plugin logs to stderr as it starts.
  const loaded = new Map<CpuExecutorName, k.Executor | undefined>();
  const executorOf = (name: CpuExecutorName): k.Executor | undefined => {
    if (!loaded.has(name))
      loaded.set(
        name,
        name === "ort"
          ? k.availableExecutors().find((x) => x.name === "ort" && x.platform === "cpu")
          : xlaCpuExecutor(() => deviceOf({ executor: name })),
      );
    return loaded.get(name);
  };
  const xlaPlugin = xlaCpuPluginFile(o.pjrtPlugin);
  const canRun = (name: CpuExecutorName) =>
    name === "xla" && precision !== "auto" ? xlaPlugin !== undefined : executorOf(name) !== undefined;
  const names = wantedNames.filter(canRun);
  if (names.length === 0)
    throw new OptionError({
      option: "executors",
      value: o.executors ?? [...CPU_EXECUTORS],
      why: "has no executor that can run here (ONNX Runtime did not load, and no XLA CPU plugin was found)",
      fix: "Install the xla-cpu-pjrt wheel, or name a CPU plugin with pjrtPlugin",
      where: "chooseCpuExecution",
    });
  const candidates = candidatesFor(precision, names, (n) => executorOf(n)?.abilities.emulatesNarrowFloats ?? false);
  if (candidates.length === 1) {
    const only = candidates[0]!;
    const why = names.length < wantedNames.length ? ` (${wantedNames.filter((n) => !names.includes(n)).join(", ")} cannot run here)` : "";
    const slower = precision === "auto" ? ", f32 (its bf16 is emulated, always slower)" : "";
    return {
      ...only,
      timings: [],
      fromCache: false,
      cachePath,
      line: `executor ${only.executor} (${only.precision}): the only candidate on this CPU${why}${slower}`,
    };
  }

  const shape = probeShape(o.config, o.batch, o.maxLength);
  const key: ProbeKey = {
    ...machineKey(),
    kiln: kilnPackageVersion(),
    plugin: names.includes("xla") ? await pluginIdentity(xlaPlugin) : "none",
    shape: JSON.stringify(probeShapeClass(shape)),
    request: `${precision} on ${names.join(",")}`,
  };
  let entry: ProbeEntry | undefined;
  if (!o.refresh) {
    const cache = await readProbeCache(cachePath);
    if (cache.problem) notice(`${cache.problem}; probing again (the file will be replaced)`);
    entry = findProbeEntry(cache.entries, key);
    // An entry measured for other candidates (e.g. by an older Kiln under the same key) is measured again.
    if (entry && !candidates.every((c) => entry!.timings.some((t) => t.executor === c.executor && t.precision === c.precision)))
      entry = undefined;
  }
  const fromCache = entry !== undefined;
  if (!entry) {
    const timings = await probeExecutions(shape, candidates, deviceOf, o.budget);
    const load = machineLoad();
    entry = { key, probedAt: new Date().toISOString(), ...(load !== undefined ? { load } : {}), timings };
    try {
      await storeProbeEntry(cachePath, entry);
    } catch (e) {
      // An unwritable cache costs the next run a probe, not this run its training.
      notice(`the executor probe cache ${cachePath} could not be written (${(e as Error).message}): the next run probes again`);
    }
    for (const line of bf16Notices(timings)) notice(line);
  }
  const timings = entry.timings.filter((t) => candidates.some((c) => c.executor === t.executor && c.precision === t.precision));
  const chosen = pickTiming(timings, candidates[0]!);
  return {
    executor: chosen.executor,
    precision: chosen.precision,
    timings,
    probedAt: entry.probedAt,
    fromCache,
    cachePath,
    line: choiceLine(chosen, timings, candidates[0]!, entry, cachePath, describeProbeShape(shape)),
  };
}

/** XLA's executor on its CPU plugin, or undefined where no plugin is found (`selectDevices` refuses executor "xla"). */
function xlaCpuExecutor(load: () => k.Device): k.Executor | undefined {
  try {
    return load().executor;
  } catch (e) {
    if (e instanceof OptionError && e.option === "executor") return undefined;
    throw e;
  }
}

/** The fastest timing, unless the default's is within PROBE_MARGIN of it (then the default). */
export function pickTiming(timings: readonly CandidateTiming[], preferred: ExecutionCandidate): CandidateTiming {
  const fastest = timings.reduce((a, b) => (b.stepSeconds < a.stepSeconds ? b : a));
  const base = timings.find((t) => t.executor === preferred.executor && t.precision === preferred.precision);
  return base && base.stepSeconds <= fastest.stepSeconds * PROBE_MARGIN ? base : fastest;
}

const label = (c: ExecutionCandidate) => `${c.executor} ${c.precision === "32" ? "f32" : c.precision}`;

function choiceLine(
  chosen: CandidateTiming,
  timings: readonly CandidateTiming[],
  preferred: ExecutionCandidate,
  entry: ProbeEntry,
  cachePath: string,
  shape: string,
): string {
  const base = timings.find((t) => t.executor === preferred.executor && t.precision === preferred.precision) ?? timings[0]!;
  const ms = (t: CandidateTiming) => `${label(t)} ${(t.stepSeconds * 1000).toFixed(0)} ms`;
  const measured = `${[chosen, ...timings.filter((t) => t !== chosen)].map(ms).join(", ")} per step of ${shape}`;
  const why =
    chosen === base
      ? `the default; no other candidate was ${Math.round((PROBE_MARGIN - 1) * 100)}% faster`
      : `${(base.stepSeconds / chosen.stepSeconds).toFixed(2)}× ${label(base)}`;
  const when = `probed ${entry.probedAt}${busy(entry)}, cached in ${cachePath}`;
  return `executor ${chosen.executor} (${chosen.precision}): ${why} on this CPU (${measured}), ${when}`;
}

/** Says that an entry was measured while the machine was busy, where it was. */
function busy(e: ProbeEntry): string {
  return probedWhileBusy(e) ? ` while the machine was busy (load ${e.load} on ${e.key.cores} cores: probe again when idle)` : "";
}

/** Where bf16-mixed measured slower than f32 on the same executor: one sentence each. */
export function bf16Notices(timings: readonly CandidateTiming[]): string[] {
  const out: string[] = [];
  for (const t of timings) {
    if (t.precision !== "bf16-mixed") continue;
    const f32 = timings.find((x) => x.executor === t.executor && x.precision === "32");
    if (f32 && t.stepSeconds > f32.stepSeconds)
      out.push(
        `bf16-mixed is slower than f32 on ${t.executor} on this CPU (${(f32.stepSeconds / t.stepSeconds).toFixed(2)}× f32's speed): ` +
          `its 16-bit products are not native here`,
      );
  }
  return out;
}

/** One cached entry in a line: the shape, the precision asked for, what was chosen and every timing. */
export function describeProbeEntry(e: ProbeEntry): string {
  const chosen = pickTiming(e.timings, e.timings[0]!);
  const ms = e.timings.map((t) => `${label(t)} ${(t.stepSeconds * 1000).toFixed(0)} ms`).join(", ");
  let shape = e.key.shape;
  try {
    shape = Object.entries(JSON.parse(e.key.shape) as Record<string, unknown>)
      .map(([name, value]) => `${name} ${String(value)}`)
      .join(", ");
  } catch {
    // a key written by another version: shown as it is
  }
  return `${shape}; precision ${e.key.request}: ${label(chosen)} (${ms}; probed ${e.probedAt}${busy(e)})`;
}
