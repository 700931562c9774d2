// One ONNX Runtime session run with its profiler on, for the profile-* benches: the model is run twice to
// warm up and then `runs` times; the kernel events of the timed runs are what the benches sum by op type
// and by node. Two warm-up runs, because the second run measured 2-3x slower than the ones after it
// (llama-small's training step: 2,102 ms against 770-790; ONNX Runtime allocates the memory pattern it
// recorded in the first run then): counted, it inflated the large ops' shares and put the kernel time
// above the wall time.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as ort from "onnxruntime-node";
import { peerSession } from "./ort-peer.js";
import { OrtExecutor, type HostArray, type Program } from "../../src/index.js";
import type { OrtExecutable } from "../../src/exec/ort/executable.js";

/** `--name value` from a bench's arguments, or `fallback`. */
export function flag(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
}

const WARMUP_RUNS = 2;

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
  for (let i = 0; i < WARMUP_RUNS + o.runs; i++) {
    const t0 = performance.now();
    await session.run(feeds);
    wall.push(performance.now() - t0);
  }
  session.endProfiling();
  await session.release();
  const file = readdirSync(dir).find((f) => f.endsWith(".json"))!;
  const profile = summarize(join(dir, file), wall, o.runs);
  rmSync(dir, { recursive: true, force: true });
  return profile;
}

/**
 * The same measurement through Kiln's own executor: the program as Kiln runs it (its generated kernels
 * included, which onnxruntime-node's session cannot load), `args` bound as device buffers.
 */
export async function profileProgram(
  program: Program,
  inputs: readonly HostArray[],
  o: { threads: number; runs: number; prefix: string },
): Promise<SessionProfile> {
  const dir = mkdtempSync(join(tmpdir(), "kiln-profile-"));
  const executor = new OrtExecutor({ threads: o.threads, profile: join(dir, o.prefix) });
  const args = inputs.map((data, i) => executor.fromHost(data, program.inputs[i]!.aval));
  const exe = executor.compile(program) as OrtExecutable;
  const wall: number[] = [];
  for (let i = 0; i < WARMUP_RUNS + o.runs; i++) {
    const t0 = performance.now();
    const outs = exe.execute([args])[0]!;
    await Promise.all(outs.map((b) => b.toHost()));
    wall.push(performance.now() - t0);
    for (const b of outs) b.dispose();
  }
  const file = exe.endProfiling();
  exe.dispose();
  for (const b of args) b.dispose();
  const profile = summarize(file, wall, o.runs);
  rmSync(dir, { recursive: true, force: true });
  return profile;
}

/** The kernel events of the runs after the warm-up ones in ONNX Runtime's profile `file`; `wall`: every run's wall time. */
function summarize(file: string, wall: readonly number[], runs: number): SessionProfile {
  const events = JSON.parse(readFileSync(file, "utf8")) as ProfileEvent[];
  // The warm-up runs are left out of the sums.
  const warmup = events.filter((e) => e.cat === "Session" && e.name === "model_run")[WARMUP_RUNS - 1];
  if (!warmup) throw new Error(`ONNX Runtime's profile has fewer than ${WARMUP_RUNS} model_run events`);
  const timed = events.filter((e) => e.cat === "Node" && e.name.endsWith("_kernel_time") && e.ts > warmup.ts + warmup.dur);
  const keyOf = {
    // Each generated kernel is an op type of its own: summed as one.
    op: (e: ProfileEvent) =>
      (e.args?.op_name ?? "?")
        .replace(/^pw_[0-9a-f]+$/, "pointwise (generated)")
        .replace(/^softmax_rows_.*/, "softmax rows (generated)")
        .replace(/^scatter_rows_.*/, "scatter rows (generated)")
        .replace(/^transpose_\d+x\d+$/, "transpose (generated)"),
    node: (e: ProfileEvent) => `${e.args?.op_name ?? "?"} ${e.name.replace(/_kernel_time$/, "")}`,
  };
  return {
    wallMs: wall.slice(WARMUP_RUNS).sort((a, b) => a - b)[Math.floor(runs / 2)]!,
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
