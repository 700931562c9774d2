// launch(fn, { nprocs }): a TypeScript function run as nprocs cooperating processes, as Accelerate's
// notebook_launcher and torch.multiprocessing.spawn do it. The calling script is started again nprocs
// times with the launcher's environment; in those processes `launch` finds the environment and runs fn
// with its rank and the coordination store; in the first one it supervises them as `kiln launch` does.
import { readProcessEnv, parseHostPort, type ProcessEnv } from "./process-env.js";
import { StoreError } from "./store-client.js";
import { LaunchError, superviseProcesses, type SuperviseOptions } from "./supervisor.js";
import { joinRun, type RunContext } from "./join-run.js";

/** What fn gets: its place in the run, the run's coordination store and a barrier over every rank. */
export type LaunchContext = RunContext;

/** Options of launch: processes on this host, hosts in the run and this host's index, the store's address. */
export interface LaunchOptions {
  /** Processes to run on this host. */
  nprocs: number;
  /** Hosts in the run (default 1), this host's index (default 0), and node 0's store address ("host:port"). */
  numNodes?: number;
  nodeRank?: number;
  coordinator?: string;
  /** Between SIGTERM and SIGKILL when the run stops (default 30 000 ms). */
  gracePeriodMs?: number;
  /** How long to wait for the store and the other hosts (default 120 000 ms). */
  joinTimeoutMs?: number;
}

/** The command line that started this process, to start it again (node's own flags, -e code included). */
function thisScript(): { command: string; args: string[] } {
  const evaluated = process.execArgv.some((a) => /^(-e|--eval|-p|--print)(=|$)/.test(a));
  if (process.argv.length < 2 && !evaluated)
    throw new LaunchError("launch() starts the calling script again in each process: run it from a file (node script.js), not a REPL", {
      refused: true,
    });
  return { command: process.execPath, args: [...process.execArgv, ...process.argv.slice(1)] };
}

/**
 * Runs `fn` in `nprocs` processes. In the launching process it resolves once every process finished
 * and rejects with a LaunchError naming the rank that failed and why; in each started process it runs
 * fn and resolves when fn does (so code after `await launch(…)` runs in every process: keep the work in fn).
 */
export async function launch(fn: (context: LaunchContext) => unknown, options: LaunchOptions): Promise<void> {
  const env = readProcessEnv();
  if (env) return runChild(fn, env);
  const supervise: SuperviseOptions = { ...thisScript(), nprocPerNode: options.nprocs };
  if (options.numNodes !== undefined) supervise.numNodes = options.numNodes;
  if (options.nodeRank !== undefined) supervise.nodeRank = options.nodeRank;
  if (options.coordinator !== undefined) supervise.coordinator = parseHostPort(options.coordinator, "coordinator");
  if (options.gracePeriodMs !== undefined) supervise.gracePeriodMs = options.gracePeriodMs;
  if (options.joinTimeoutMs !== undefined) supervise.joinTimeoutMs = options.joinTimeoutMs;
  if (!(Number.isInteger(options.nprocs) && options.nprocs >= 1))
    throw new LaunchError(`nprocs must be an integer ≥ 1, got ${options.nprocs}`, { refused: true });
  return superviseProcesses(supervise);
}

async function runChild(fn: (context: LaunchContext) => unknown, env: ProcessEnv): Promise<void> {
  if (!env.coordinator)
    throw new LaunchError(
      `launch() found this process started by ${env.source} (rank ${env.rank} of ${env.worldSize}) without a coordination store: ` +
        "start the script with plain node (launch starts the processes) or with `kiln launch`",
    );
  const run = await joinRun(env);
  try {
    await fn(run);
  } catch (e) {
    // The run fails with this error named (not only "exited with code 1"), unless another rank failed first.
    if (!(e instanceof StoreError && e.code === "ABORTED")) {
      const what = e instanceof Error ? `${e.name}: ${e.message.split("\n")[0]}` : String(e);
      await run.fail(`fn threw ${what}`).catch(() => {});
    }
    throw e;
  } finally {
    run.close();
  }
}
