// Running as one of N processes (data parallelism across processes, Horovod's design): which process
// this is, the MPI communicator that sums gradients across processes, rank-prefixed output, and the
// agreement of every rank's settings before any work starts.
//
// The process's place comes from its launcher's environment (mpirun/mpiexec: OMPI_COMM_WORLD_* or
// PMI_*; `kiln launch`: KILN_RANK/KILN_WORLD_SIZE, with MPICH joined through the process-management
// interface the launcher serves) and is cross-checked against MPI's own rank and size.
import { writeSync } from "node:fs";
import { MpiCommunicator } from "./mpi/communicator.js";
import { launcherFlavor } from "./mpi/library.js";

export interface ProcessPlace {
  rank: number;
  size: number;
  /** Which variables said so. */
  source: "kiln" | "openmpi" | "mpich";
}

function intVar(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`environment variable ${name} must be a whole number ≥ 0, got "${v}"`);
  return n;
}

/** This process's rank and the number of processes, from the launcher's variables; undefined when started alone. */
export function processPlace(env: NodeJS.ProcessEnv = process.env): ProcessPlace | undefined {
  const read = (source: ProcessPlace["source"], rankVar: string, sizeVar: string): ProcessPlace | undefined => {
    const rank = intVar(env, rankVar),
      size = intVar(env, sizeVar);
    if (rank === undefined || size === undefined) return undefined;
    if (rank >= size) throw new Error(`${rankVar}=${rank} is not below ${sizeVar}=${size}`);
    return { rank, size, source };
  };
  const place =
    read("kiln", "KILN_RANK", "KILN_WORLD_SIZE") ??
    read("openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE") ??
    read("mpich", "PMI_RANK", "PMI_SIZE");
  return place && place.size > 1 ? place : undefined;
}

/** The processes of one training run, joined through MPI. */
export interface ProcessGroup {
  readonly rank: number;
  readonly size: number;
  readonly comm: MpiCommunicator;
  /** Whether the launcher shows each line behind "[rank R] " itself (`kiln launch` does; mpirun does not). */
  readonly launcherPrefixes: boolean;
}

let joined: ProcessGroup | undefined;

/**
 * Data parallelism across processes is built for CPU executors (MPI sums the gradients). On GPUs and TPUs
 * the collectives are XLA's own (the client's key-value store and compileGlobal in exec/xla), which the
 * Trainer does not drive yet: a process started as one of several refuses, rather than training alone
 * and writing the same output directory as the others.
 */
export function refuseAcceleratorProcessGroup(platform: string, numNodes = 1, env: NodeJS.ProcessEnv = process.env): void {
  const place = processPlace(env);
  if (!place && numNodes <= 1) return;
  const what = place ? `this process is rank ${place.rank} of ${place.size} (${place.source})` : `numNodes is ${numNodes}`;
  throw new Error(
    `${what}, but training across processes on ${platform} ` +
      `devices is not supported yet (only on CPUs, with MPI); train in one process over this machine's ${platform} ` +
      `devices (devices: N), or across processes on CPUs (accelerator: "cpu")`,
  );
}

/**
 * The process group this process belongs to, MPI initialized on first call; undefined for a process
 * started alone. `expected` (Lightning's num_nodes: the number of processes) is checked against it.
 */
export function joinProcessGroup(o: { expected?: number; env?: NodeJS.ProcessEnv } = {}): ProcessGroup | undefined {
  const env = o.env ?? process.env;
  const place = processPlace(env);
  if (!place) {
    if (o.expected !== undefined && o.expected > 1)
      throw new Error(
        `numNodes is ${o.expected}, but this process was started alone: start ${o.expected} processes with ` +
          `mpiexec -n ${o.expected} (or mpirun -n ${o.expected}, or kiln launch --nproc-per-node ${o.expected}), each running ` +
          `the same training`,
      );
    return undefined;
  }
  if (!joined) {
    // `kiln launch` serves MPICH's process-management interface and points every process at it (PMI_PORT,
    // KILN_MPI=mpich); KILN_RANK without it is another launcher's, under which MPI would start alone.
    if (place.source === "kiln" && !launcherFlavor(env))
      throw new Error(
        `this process is rank ${place.rank} of ${place.size} (KILN_RANK, KILN_WORLD_SIZE), but no MPI launcher started it ` +
          `(no PMI_PORT or KILN_MPI): data parallelism across processes on CPUs sums gradients with MPI; start the processes ` +
          `with kiln launch --nproc-per-node ${place.size} or mpiexec -n ${place.size}`,
      );
    const comm = MpiCommunicator.init();
    if (comm.rank !== place.rank || comm.size !== place.size)
      throw new Error(
        `MPI (${comm.lib.path}) says rank ${comm.rank} of ${comm.size}, but the launcher's variables (${place.source}) say ` +
          `rank ${place.rank} of ${place.size}: the processes were started by another MPI than the one loaded; ` +
          `set KILN_MPI=openmpi or KILN_MPI=mpich to match the launcher`,
      );
    joined = { rank: comm.rank, size: comm.size, comm, launcherPrefixes: place.source === "kiln" };
    // At exit: MPI_Finalize after a clean run. After a failure the process leaves without it, and the
    // launcher (mpirun, mpiexec, kiln launch), seeing a rank end with an error, stops the others rather than letting
    // them wait for this one at their next collective. (Not MPI_Abort here: it kills at once, before
    // the error message this process is printing reaches the terminal.)
    process.on("exit", (code) => {
      if (code === 0) comm.finalizeNow();
      else writeSync(2, `${rankPrefix(joined)}rank ${comm.rank} failed (exit code ${code}): the launcher stops every rank\n`);
    });
  }
  if (o.expected !== undefined && o.expected !== joined.size)
    throw new Error(`numNodes is ${o.expected}, but ${joined.size} processes were started: make them equal`);
  return joined;
}

/** The group joined so far (without joining one). */
export function currentProcessGroup(): ProcessGroup | undefined {
  return joined;
}

/** "[rank R] " for every rank but 0, whose output is the run's own (none where the launcher adds it). */
export function rankPrefix(group: ProcessGroup | undefined): string {
  return group && group.rank > 0 && !group.launcherPrefixes ? `[rank ${group.rank}] ` : "";
}

/**
 * Refuses settings that differ between ranks, on every rank at once: rank 0's settings are broadcast,
 * each rank compares them with its own, and the ranks that differ are summed across the group, so
 * every rank throws (naming the settings where it differs, or the ranks that do) rather than some
 * ranks going on to wait for the others forever.
 */
export async function agreeOnSettings(
  group: ProcessGroup,
  settings: Record<string, unknown>,
  remedy = "start every process with the same command, data and model",
): Promise<void> {
  const mine = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, JSON.stringify(v) ?? "undefined"]));
  const bytes = new TextEncoder().encode(JSON.stringify(mine));
  const length = new Float64Array([group.rank === 0 ? bytes.length : 0]);
  await group.comm.broadcast(length, 0);
  const buf = new Uint8Array(length[0]!);
  if (group.rank === 0) buf.set(bytes);
  await group.comm.broadcast(buf, 0);
  const root = JSON.parse(new TextDecoder().decode(buf)) as Record<string, string>;
  const names = [...new Set([...Object.keys(root), ...Object.keys(mine)])].sort();
  const differing = names.filter((n) => root[n] !== mine[n]);
  const flags = new Float64Array(group.size);
  flags[group.rank] = differing.length ? 1 : 0;
  await group.comm.allReduceSum(flags);
  const ranks = [...flags.keys()].filter((r) => flags[r]! > 0);
  if (ranks.length === 0) return;
  if (differing.length)
    throw new Error(
      `rank ${group.rank}'s settings differ from rank 0's: ` +
        differing.map((n) => `${n} ${root[n] ?? "(unset)"} on rank 0, ${mine[n] ?? "(unset)"} here`).join("; ") +
        `: ${remedy}`,
    );
  throw new Error(`the settings of rank${ranks.length > 1 ? "s" : ""} ${ranks.join(", ")} differ from rank 0's (named in their output)`);
}

/** Whether any rank stops (and whether any was interrupted): the same answer on every rank. */
export async function agreeToStop(
  group: ProcessGroup,
  stop: boolean,
  interrupted: boolean,
): Promise<{ stop: boolean; interrupted: boolean }> {
  const flags = new Float32Array([stop ? 1 : 0, interrupted ? 1 : 0]);
  await group.comm.allReduceMax(flags);
  return { stop: flags[0]! > 0, interrupted: flags[1]! > 0 };
}
