// One run of a benchmark contender as a fresh process (Kiln's CLI or a Python peer), its JSON result
// line picked from its output: what the peer comparisons (train-peers, train --task sequence-classification)
// take turns running, round after round, so that every contender sees the same machine.
import { spawnSync } from "node:child_process";

export interface ContenderProcess {
  name: string;
  command: string;
  args: string[];
  /** Which JSON line of the output is this contender's (a peer script may print one per mode). */
  pick: (line: Record<string, unknown>) => boolean;
  /** More environment for this contender (e.g. its thread count). */
  env?: Record<string, string>;
}

/** Runs the contender once (peers on 2 threads, offline) and returns its result line; a failure throws with its stderr's tail. */
export function runContender(c: ContenderProcess, bench: string): Record<string, unknown> {
  const r = spawnSync(c.command, c.args, {
    encoding: "utf8",
    maxBuffer: 1 << 26,
    env: { ...process.env, HF_HUB_OFFLINE: "1", TRANSFORMERS_OFFLINE: "1", OMP_NUM_THREADS: "2", ...c.env },
  });
  const lines = (r.stdout ?? "")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const line = lines.find(c.pick);
  if (r.status !== 0 || !line)
    throw new Error(
      `bench ${bench}: ${c.name} failed (${r.error?.message ?? `exit ${r.status}`}): ${c.command} ${c.args.join(" ")}\n` +
        (r.stderr ?? "").slice(-2000),
    );
  return line;
}
