// One ONNX Runtime session run with its profiler on, for the profile-* benches: the model is run once to
// warm up (allocations, first touch) and then `runs` times; the kernel events of the timed runs are
// what the benches sum by op type and by node.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as ort from "onnxruntime-node";
import { peerSession } from "./ort-peer.js";

/** `--name value` from a bench's arguments, or `fallback`. */
export function flag(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
}

interface ProfileEvent {
  cat: string;
  name: string;
  dur: number;
  ts: number;
  args?: { op_name?: string };
}

export interface SessionProfile {
  /** The median wall time of the timed runs, in ms. */
  wallMs: number;
  /** The kernel time of the timed runs, in µs. */
  totalUs: number;
  /** The timed runs' kernel time and event count per key, largest first, the first `top`. */
  sumBy(key: "op" | "node", top: number): [string, number, number][];
}

export async function profileSession(
  model: Uint8Array,
  feeds: Record<string, ort.Tensor>,
  o: { threads: number; runs: number; prefix: string },
): Promise<SessionProfile> {
  const dir = mkdtempSync(join(tmpdir(), "kiln-profile-"));
  const session = await peerSession(model, o.threads, { enableProfiling: true, profileFilePrefix: join(dir, o.prefix) });
  const wall: number[] = [];
  for (let i = 0; i < 1 + o.runs; i++) {
    const t0 = performance.now();
    await session.run(feeds);
    wall.push(performance.now() - t0);
  }
  session.endProfiling();
  await session.release();
  const file = readdirSync(dir).find((f) => f.endsWith(".json"))!;
  const events = JSON.parse(readFileSync(join(dir, file), "utf8")) as ProfileEvent[];
  rmSync(dir, { recursive: true, force: true });
  // The first run is left out of the sums.
  const first = events.find((e) => e.cat === "Session" && e.name === "model_run");
  const timed = events.filter((e) => e.cat === "Node" && e.name.endsWith("_kernel_time") && (!first || e.ts > first.ts + first.dur));
  const keyOf = {
    op: (e: ProfileEvent) => e.args?.op_name ?? "?",
    node: (e: ProfileEvent) => `${e.args?.op_name ?? "?"} ${e.name.replace(/_kernel_time$/, "")}`,
  };
  return {
    wallMs: wall.slice(1).sort((a, b) => a - b)[Math.floor(o.runs / 2)]!,
    totalUs: timed.reduce((s, e) => s + e.dur, 0),
    sumBy(key, top) {
      const m = new Map<string, [number, number]>();
      for (const e of timed) {
        const k = keyOf[key](e);
        const v = m.get(k) ?? [0, 0];
        m.set(k, [v[0] + e.dur, v[1] + 1]);
      }
      return [...m.entries()]
        .sort((a, b) => b[1][0] - a[1][0])
        .slice(0, top)
        .map(([k, [us, n]]) => [k, us, n]);
    },
  };
}
