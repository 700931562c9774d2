// Timing for benchmarks on a shared, noisy machine: the contenders take turns in the same process (so
// both see the same load), and results are medians.
import { parseArgs } from "node:util";

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Each turn runs untimed iterations for WARM_MS (at least one), then TIMED back-to-back iterations.
 * Alternating single iterations would measure something else: ONNX Runtime's pool threads keep
 * spinning for tens of milliseconds after a run, so two sessions run alternately slow each other down
 * by half (1024³ matmul: 17 ms each instead of 7.5 and 10 ms alone), and a pause long enough to let
 * them sleep makes the next run start cold (an MLP step: 11 ms instead of 2.7).
 */
const WARM_MS = 60,
  TIMED = 5;

/** Runs each contender `iters` timed times in alternating turns; returns their median times in ms. */
export async function interleaved(contenders: Record<string, () => Promise<void>>, iters: number): Promise<Record<string, number>> {
  const names = Object.keys(contenders);
  const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  while (times[names[0]!]!.length < iters) {
    for (const n of names) {
      const f = contenders[n]!;
      const start = performance.now();
      do await f();
      while (performance.now() - start < WARM_MS);
      for (let i = 0; i < TIMED && times[n]!.length < iters; i++) {
        const t0 = performance.now();
        await f();
        times[n]!.push(performance.now() - t0);
      }
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(times[n]!)]));
}

/** `--iters N --threads T --nodes N` flags shared by the benchmarks. */
export function benchFlags(args: string[], defaults: { iters: number }) {
  const { values } = parseArgs({
    args,
    options: { iters: { type: "string" }, threads: { type: "string" }, nodes: { type: "string" } },
    strict: true,
  });
  const int = (v: string | undefined, d: number) => (v === undefined ? d : Number.parseInt(v, 10));
  return {
    iters: int(values.iters, defaults.iters),
    threads: values.threads ? int(values.threads, 0) : undefined,
    nodes: int(values.nodes, 5000),
  };
}

export const round = (x: number, digits = 3) => Number(x.toFixed(digits));
