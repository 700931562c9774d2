// Starting N copies of a node script under the installed MPI launcher (Open MPI's mpirun, else MPICH's
// mpiexec), on this machine, bounded in time; and the training outputs tests compare.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readSafetensors } from "../../src/models/safetensors.js";

export interface Launcher {
  flavor: "openmpi" | "mpich";
  /** The command and its arguments before the program, for n processes. */
  argv(n: number): string[];
}

function found(cmd: string): boolean {
  return spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0;
}

const LAUNCHERS: Record<Launcher["flavor"], Launcher & { command: string }> = {
  openmpi: {
    flavor: "openmpi",
    command: "mpirun.openmpi",
    // Root (containers, CI) needs --allow-run-as-root; more processes than cores need --oversubscribe.
    argv: (n) => ["mpirun.openmpi", ...(process.getuid?.() === 0 ? ["--allow-run-as-root"] : []), "--oversubscribe", "-n", String(n)],
  },
  mpich: { flavor: "mpich", command: "mpiexec.mpich", argv: (n) => ["mpiexec.mpich", "-n", String(n)] },
};

/** The launcher the tests use (Open MPI's, else MPICH's), or the one of `flavor`; undefined when not installed. */
export function findLauncher(flavor?: Launcher["flavor"]): Launcher | undefined {
  const order = flavor ? [LAUNCHERS[flavor]] : [LAUNCHERS.openmpi, LAUNCHERS.mpich];
  return order.find((l) => found(l.command));
}

/** Where no MPI is installed the tests skip with this reason, except under CI=true, where they run and fail. */
export const mpiSkip =
  findLauncher() || process.env.CI === "true"
    ? false
    : "no MPI launcher installed (apt-get install -y openmpi-bin libopenmpi-dev, or mpich libmpich-dev)";

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/**
 * Runs `program args` as `n` processes (each line of `perRank` replaces the arguments for that rank,
 * in MPI's colon syntax), killing the launcher after `timeoutMs`. `onLine` sees every stdout line.
 */
export function mpiRun(
  n: number,
  program: string[],
  o: {
    timeoutMs?: number;
    onLine?: (line: string, child: ReturnType<typeof spawn>) => void;
    perRank?: string[][];
    env?: Record<string, string>;
    flavor?: Launcher["flavor"];
  } = {},
): Promise<Run> {
  const launcher = findLauncher(o.flavor)!;
  const argv = o.perRank
    ? [...launcher.argv(1).slice(0, -2), ...o.perRank.flatMap((args, i) => [...(i ? [":"] : []), "-n", "1", process.execPath, ...args])]
    : [...launcher.argv(n), process.execPath, ...program];
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: ["ignore", "pipe", "pipe"],
      // One intra-op thread per process: the processes share this machine's cores.
      env: { ...process.env, KILN_CPU_THREADS: "1", ...o.env },
    });
    let stdout = "",
      stderr = "",
      partial = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 120_000);
    child.stdout!.on("data", (b: Buffer) => {
      stdout += b;
      partial += b;
      const lines = partial.split("\n");
      partial = lines.pop()!;
      for (const l of lines) o.onLine?.(l, child);
    });
    child.stderr!.on("data", (b: Buffer) => (stderr += b));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, seconds: (performance.now() - t0) / 1000 });
    });
  });
}

/** Per-step training losses from an output directory's metrics.jsonl. */
export function stepLosses(dir: string): number[] {
  // Only whole lines: a test that polls a running job's log can read it just after it was created, or
  // between a line's first bytes and its newline.
  return readFileSync(join(dir, "metrics.jsonl"), "utf8")
    .split("\n")
    .slice(0, -1)
    .map((l) => JSON.parse(l))
    .filter((m) => m.loss !== undefined)
    .map((m) => m.loss as number);
}

/** The largest |a − b| / |b| over two lists of numbers (|b| floored at `floor`). */
export function maxRelative(a: ArrayLike<number>, b: ArrayLike<number>, floor = 1e-3): number {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!) / Math.max(Math.abs(b[i]!), floor));
  return worst;
}

/**
 * How far the final parameters of two output directories (model.safetensors) are apart: the largest
 * difference relative to each tensor's largest magnitude, and the largest absolute difference in the
 * tensors that hold only rounding noise (every value below 1e-5: attention's key bias, whose true
 * gradient is 0 because softmax ignores a shift, and which AdamW moves by ±lr steps of noise). An
 * element-wise relative measure would say nothing: AdamW's step is ±lr for a gradient of any size.
 */
export async function paramDifference(dirA: string, dirB: string): Promise<{ relative: number; noise: number }> {
  const a = (await readSafetensors(join(dirA, "model.safetensors"))).tensors;
  const b = (await readSafetensors(join(dirB, "model.safetensors"))).tensors;
  assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort());
  let relative = 0,
    noise = 0;
  for (const name of Object.keys(a)) {
    const x = a[name]!.data as ArrayLike<number>,
      y = b[name]!.data as ArrayLike<number>;
    let scale = 0,
      diff = 0;
    for (let i = 0; i < y.length; i++) {
      scale = Math.max(scale, Math.abs(y[i]!));
      diff = Math.max(diff, Math.abs(x[i]! - y[i]!));
    }
    if (scale < 1e-5) noise = Math.max(noise, diff);
    else relative = Math.max(relative, diff / scale);
  }
  return { relative, noise };
}
