// One writer per output directory. Two runs training into one directory would overwrite each other's
// checkpoints and interleave metrics.jsonl (and `overwrite` or a resume's tidying would delete the live
// run's files), so the run that writes holds `.kiln-run.lock`, naming its process id and host; another
// run is refused while that process lives. A lock whose process is gone (killed, crashed) is stale: the
// next run takes it over and says so. In a multi-process run only the process that writes (rank 0) holds it.
import { readFileSync, rmSync } from "node:fs";
import { link, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";

export const RUN_LOCK_FILE = ".kiln-run.lock";

interface LockHolder {
  pid: number;
  host: string;
  started: string;
}

/** The output directory is held by another live run. */
export class RunDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the output directory ${dir} is in use by another training run (process ${holder.pid} on ${holder.host}, ` +
        `started ${holder.started}; ${join(dir, RUN_LOCK_FILE)}): wait for it to finish or stop it, or train into another directory. ` +
        `If that process is not a training run (its id was reused), delete ${join(dir, RUN_LOCK_FILE)}`,
    );
    this.name = "RunDirLockedError";
  }
}

/** Locks this process took and still holds, by path: a lock file naming this process but not in here is left from an earlier fit. */
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to another user.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readHolder(path: string): Promise<LockHolder | undefined> {
  try {
    const h = JSON.parse(await readFile(path, "utf8"));
    if (Number.isSafeInteger(h?.pid) && typeof h?.host === "string") return { pid: h.pid, host: h.host, started: String(h.started) };
    return { pid: -1, host: "?", started: "?" }; // unreadable: treated as stale below
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    if (e instanceof SyntaxError) return { pid: -1, host: "?", started: "?" };
    throw e;
  }
}

/** Why `holder` no longer holds the directory, or undefined while it may still (a live process, or another host's). */
function staleBecause(path: string, holder: LockHolder): string | undefined {
  if (holder.pid < 0) return "it is not a lock Kiln wrote";
  if (holder.host !== hostname()) return undefined; // another machine's process cannot be checked from here
  if (holder.pid === process.pid) return held.has(path) ? undefined : "an earlier run in this process stopped without releasing it";
  return alive(holder.pid) ? undefined : `process ${holder.pid} is no longer running`;
}

/**
 * Refuses `dir` while a live run holds it (without taking it): for checks made before the run starts.
 * A lock on another host counts as live.
 */
export async function checkRunLock(dir: string): Promise<void> {
  const path = join(dir, RUN_LOCK_FILE);
  const holder = await readHolder(path);
  if (holder?.pid === process.pid && holder.host === hostname() && held.has(path)) return; // this run's own
  if (holder && !staleBecause(path, holder)) throw new RunDirLockedError(dir, holder);
}

export interface RunLock {
  readonly path: string;
  /** Removes the lock (only while it still names this process). */
  release(): Promise<void>;
}

/**
 * Takes `dir`'s lock for this process (creating `dir`), or throws RunDirLockedError while another live run
 * holds it. A stale lock is taken over, and `notice` is told whose it was and why it was stale.
 */
export async function takeRunLock(dir: string, notice: (message: string) => void = () => {}): Promise<RunLock> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, RUN_LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
  const text = JSON.stringify(mine) + "\n";
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // "wx": created only if absent, so of two runs starting at once exactly one gets it.
      const fh = await open(path, "wx");
      try {
        await fh.writeFile(text);
      } finally {
        await fh.close();
      }
      held.add(path);
      return lockHandle(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const holder = await readHolder(path);
    if (!holder) continue; // released meanwhile: try again
    const why = staleBecause(path, holder);
    if (!why) throw new RunDirLockedError(dir, holder);
    // Moved aside under a name of our own before removal: if two runs find the same stale lock, only one
    // rename succeeds, and the other sees the winner's fresh lock on its next attempt.
    const aside = `${path}.stale-${process.pid}`;
    try {
      await rename(path, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw e;
    }
    const moved = await readHolder(aside);
    if (moved && (moved.pid !== holder.pid || moved.started !== holder.started)) {
      // Another run took the stale lock over between our read and our rename: its lock goes back.
      await link(aside, path).catch(() => {});
      await rm(aside, { force: true });
      throw new RunDirLockedError(dir, moved);
    }
    await rm(aside, { force: true });
    notice(`${dir}: took over the lock of process ${holder.pid} on ${holder.host} (${why})`);
  }
  const holder = await readHolder(path);
  throw new RunDirLockedError(dir, holder ?? { pid: -1, host: "?", started: "?" });
}

function lockHandle(path: string): RunLock {
  let released = false;
  // A process that exits without releasing (process.exit after a second Ctrl+C) removes its lock on the
  // way out; only a killed one leaves it, to be taken over as stale.
  const onExit = () => {
    try {
      if (JSON.parse(readFileSync(path, "utf8")).pid === process.pid) rmSync(path, { force: true });
    } catch {
      // gone or unreadable: nothing of ours to remove
    }
  };
  process.once("exit", onExit);
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      process.off("exit", onExit);
      held.delete(path);
      const holder = await readHolder(path);
      if (holder?.pid === process.pid && holder.host === hostname()) await rm(path, { force: true });
    },
  };
}
