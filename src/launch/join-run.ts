// A process of a run joins it: its place (readProcessEnv), the run's coordination store, a barrier over
// every rank, and a watch on the launcher. `launch(fn)` gives fn this; a trainer started by `kiln launch`
// calls it itself.
import { readProcessEnv, type ProcessEnv } from "./process-env.js";
import { StoreClient, StoreError } from "./store-client.js";
import { MAX_TIMEOUT_MS } from "../io/store-wire.js";
import { NEVER_SET_KEY } from "./supervisor.js";

/** A process's view of its run. */
export interface RunContext extends ProcessEnv {
  store: StoreClient;
  /** Waits until every rank reached barrier `name` (default timeout 300 000 ms; a rank missing then is named). */
  barrier(name: string, timeoutMs?: number): Promise<void>;
  /** Marks the run failed by this rank (the line every launcher ends with); then throw or exit. */
  fail(reason: string): Promise<string>;
  /** Disconnects (the launcher watch stops). */
  close(): void;
}

/** Thrown when a process cannot join its run (no launcher, or no coordination store). */
export class JoinRunError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JoinRunError";
  }
}

/**
 * Joins the run this process was started in (by `kiln launch` or `launch(fn)`, which set KILN_COORDINATOR).
 * While joined, a launcher killed with SIGKILL (its store goes away with it, and it can no longer stop its
 * processes) makes this process exit with one line rather than compute on alone.
 */
export async function joinRun(env: ProcessEnv | undefined = readProcessEnv()): Promise<RunContext> {
  if (!env) throw new JoinRunError("this process was not started by a launcher (no KILN_RANK or other launcher's variables)");
  if (!env.coordinator)
    throw new JoinRunError(
      `this process was started by ${env.source} (rank ${env.rank} of ${env.worldSize}) without a Kiln coordination store ` +
        "(KILN_COORDINATOR): start it with `kiln launch`",
    );
  const store = await StoreClient.connect({ ...env.coordinator, connectTimeoutMs: 30_000 });
  let closed = false;
  void watchLauncher(store, env.rank, () => closed);
  return {
    ...env,
    store,
    barrier: (name, timeoutMs = 300_000) => store.barrier(name, { rank: env.rank, count: env.worldSize, timeoutMs }),
    fail: (reason) => store.abort(env.rank, reason),
    close: () => {
      closed = true;
      store.close();
    },
  };
}

async function watchLauncher(store: StoreClient, rank: number, closed: () => boolean): Promise<void> {
  for (;;) {
    try {
      await store.get(NEVER_SET_KEY, { timeoutMs: MAX_TIMEOUT_MS });
    } catch (e) {
      if (closed()) return;
      if (e instanceof StoreError && e.code === "DEADLINE_EXCEEDED") continue;
      if (e instanceof StoreError && e.code === "ABORTED") return; // the launcher stops this process
      process.stderr.write(`rank ${rank}: ${(e as Error).message}: exiting, as the run cannot go on\n`);
      process.exit(1);
    }
  }
}
