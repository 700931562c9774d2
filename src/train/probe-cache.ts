// The executor probe's results, kept per machine so a probe runs once, not every run: one small JSON
// file in the user's cache directory ($XDG_CACHE_HOME/kiln, else ~/.cache/kiln), holding an entry per
// key. A key is everything a measurement depends on: the CPU's model and core count, Kiln's version
// (its lowerings and ONNX Runtime's), the XLA CPU plugin (path, size and time of change: a new wheel is a
// new plugin), the probe shape and the precision asked for. Writes are atomic (rename over the file).
import { readFile, stat } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { cpus, availableParallelism, homedir, loadavg } from "node:os";
import { join } from "node:path";
import { writeJsonAtomic } from "../io/atomic-file.js";
import type { CandidateTiming } from "./execution-probe.js";

/** The file's name inside the cache directory. */
export const PROBE_CACHE_FILE = "executor-probe.json";
/** Entries kept at most (the newest): a machine sees few shapes, and the file stays small. */
const MAX_ENTRIES = 64;

/** What a measurement depends on; two runs with equal keys would measure the same thing. */
export interface ProbeKey {
  readonly cpu: string;
  readonly cores: number;
  readonly kiln: string;
  /** The XLA CPU plugin ("path, N bytes, changed T"), or "none". */
  readonly plugin: string;
  /** The probe shape's class (execution-probe.ts: probeShapeClass), as JSON. */
  readonly shape: string;
  /** The precision asked for ("32", "bf16-mixed", "auto", …) and the executors allowed. */
  readonly request: string;
}

/** One probe's result under its key. */
export interface ProbeEntry {
  readonly key: ProbeKey;
  /** When it was measured (ISO 8601). */
  readonly probedAt: string;
  /**
   * The machine's load average over the minute before the probe (absent where the system has none): a
   * shared machine's load slows ONNX Runtime's spinning thread pool more than XLA, so a choice made
   * while busy may not hold when idle.
   */
  readonly load?: number;
  readonly timings: readonly CandidateTiming[];
}

/** The cache directory: $XDG_CACHE_HOME/kiln, else ~/.cache/kiln. */
export function defaultProbeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && xdg.startsWith("/") ? xdg : join(homedir(), ".cache"), "kiln");
}

/** This machine's part of a key: the CPU model string and the cores this process may use. */
export function machineKey(): { cpu: string; cores: number } {
  return { cpu: cpus()[0]?.model.trim() ?? "unknown CPU", cores: availableParallelism() };
}

/** The load average over the last minute, or undefined where the system keeps none (Windows: always 0). */
export function machineLoad(): number | undefined {
  const [one] = loadavg();
  return process.platform === "win32" || one === undefined ? undefined : Number(one.toFixed(2));
}

/** Whether an entry was measured while other work held more than the cores (its choice may not hold when idle). */
export function probedWhileBusy(e: ProbeEntry): boolean {
  return e.load !== undefined && e.load > e.key.cores;
}

/** Kiln's version, from the package.json beside the compiled sources (dist/src/train/ → the package root). */
export function kilnPackageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version?: string };
    return pkg.version ?? "unknown";
  } catch {
    return "unknown";
  }
}

/** A plugin's identity for the key: its path, size and time of change (a reinstalled wheel is another plugin). */
export async function pluginIdentity(path: string | undefined): Promise<string> {
  if (!path) return "none";
  try {
    const s = await stat(path);
    return `${path}, ${s.size} bytes, changed ${s.mtime.toISOString()}`;
  } catch {
    return `${path} (unreadable)`;
  }
}

function sameKey(a: ProbeKey, b: ProbeKey): boolean {
  return (
    a.cpu === b.cpu && a.cores === b.cores && a.kiln === b.kiln && a.plugin === b.plugin && a.shape === b.shape && a.request === b.request
  );
}

/** The cache's entries; a file that is not one (damaged, another program's) gives none and a sentence saying so. */
export async function readProbeCache(path: string): Promise<{ entries: ProbeEntry[]; problem?: string }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { entries: [] };
    return { entries: [], problem: `the executor probe cache ${path} could not be read (${(e as Error).message})` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { entries: [], problem: `the executor probe cache ${path} is not valid JSON (${(e as Error).message})` };
  }
  const entries = (parsed as { entries?: unknown } | null)?.entries;
  if ((parsed as { version?: unknown } | null)?.version !== 1 || !Array.isArray(entries) || !entries.every(isEntry))
    return { entries: [], problem: `the executor probe cache ${path} does not hold version 1 probe entries` };
  return { entries };
}

function isEntry(e: unknown): e is ProbeEntry {
  const x = e as ProbeEntry | null;
  return (
    typeof x === "object" &&
    x !== null &&
    typeof x.key === "object" &&
    x.key !== null &&
    ["cpu", "kiln", "plugin", "shape", "request"].every((f) => typeof (x.key as unknown as Record<string, unknown>)[f] === "string") &&
    typeof x.key.cores === "number" &&
    typeof x.probedAt === "string" &&
    (x.load === undefined || typeof x.load === "number") &&
    Array.isArray(x.timings) &&
    x.timings.length > 0 &&
    x.timings.every((t) => typeof t.executor === "string" && typeof t.precision === "string" && t.stepSeconds > 0)
  );
}

/** The entry under `key`, if any. */
export function findProbeEntry(entries: readonly ProbeEntry[], key: ProbeKey): ProbeEntry | undefined {
  return entries.find((e) => sameKey(e.key, key));
}

/** Adds `entry` (replacing one under the same key) and writes the file atomically; a damaged file is replaced. */
export async function storeProbeEntry(path: string, entry: ProbeEntry): Promise<void> {
  const { entries } = await readProbeCache(path);
  const kept = entries.filter((e) => !sameKey(e.key, entry.key));
  await writeJsonAtomic(path, { version: 1, entries: [...kept, entry].slice(-MAX_ENTRIES) });
}
