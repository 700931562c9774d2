// A process's resident memory as Linux counts it (/proc/self/status), for benchmarks that compare peak
// memory across runtimes: VmRSS now, VmHWM the peak (what getrusage's ru_maxrss reports), and a reset of
// the peak (writing 5 to /proc/self/clear_refs), so that a phase's peak can be read apart from what came
// before it. Python peers do the same with the same files.
import { readFileSync, writeFileSync } from "node:fs";

function statusKb(field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync("/proc/self/status", "utf8"));
  if (!m) throw new Error(`/proc/self/status has no ${field} line (peak memory is read on Linux only)`);
  return Number(m[1]);
}

/** Resident memory now, in MiB. */
export const residentMb = () => Math.round(statusKb("VmRSS") / 1024);

/** The resident high-water mark since the process started or since the last resetPeakRss, in MiB. */
export const peakRssMb = () => Math.round(statusKb("VmHWM") / 1024);

/** Collects garbage where node runs with --expose-gc, then sets the high-water mark to what is resident now. */
export function resetPeakRss(): void {
  (globalThis as { gc?: () => void }).gc?.();
  writeFileSync("/proc/self/clear_refs", "5");
}
