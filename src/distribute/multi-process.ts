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
import { envInt } from "./env-int.js";
import { StoreGroupComm, type GroupComm, type KeyValueStore } from "./store-group-comm.js";

export interface ProcessPlace {
  rank: number;
  size: number;
  /** Which variables said so. */
  source: "kiln" | "openmpi" | "mpich";
}

/** This process's rank and the number of processes, from the launcher's variables; undefined when started alone. */
export function processPlace(env: NodeJS.ProcessEnv = process.env): ProcessPlace | undefined {
  const read = (source: ProcessPlace["source"], rankVar: string, sizeVar: string): ProcessPlace | undefined => {
    const rank = envInt(env, rankVar),
      size = envInt(env, sizeVar);
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

/** The processes of one training run: joined through MPI (CPUs), or through the coordination store (GPUs, TPUs). */
export interface ProcessGroup {
  readonly rank: number;
  readonly size: number;
  /** Barriers, broadcasts and small sums between the processes. */
  readonly comm: GroupComm;
  /**
   * Who sums the gradients: "mpi" (between the compiled programs, CPUs) or "xla" (the compiled step is one
   * program over every process's devices; its all_reduce crosses processes through XLA's collectives).
   */
  readonly collectives: "mpi" | "xla";
  /** Whether the launcher shows each line behind "[rank R] " itself (`kiln launch` does; mpirun does not). */
  readonly launcherPrefixes: boolean;
}

/** A group joined through MPI (its communicator's library is known). */
export type MpiProcessGroup = ProcessGroup & { readonly comm: MpiCommunicator; readonly collectives: "mpi" };

let joined: MpiProcessGroup | undefined;

/** Where the coordination store of a launched run is: KILN_COORDINATOR (host:port), set by `kiln launch`. */
export function coordinatorOf(env: NodeJS.ProcessEnv = process.env): { host: string; port: number } | undefined {
  const v = env.KILN_COORDINATOR;
  if (v === undefined || v === "") return undefined;
  const m = /^(.+):(\d+)$/.exec(v);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535)
    throw new Error(`environment variable KILN_COORDINATOR must be host:port (the coordination store kiln launch serves), got "${v}"`);
  return { host: m[1]!.replace(/^\[(.*)\]$/, "$1"), port };
}

/**
 * The place of a process that trains on GPUs/TPUs as one of several (XLA's collectives sum the gradients
 * across processes; their clients meet through the coordination store): its rank, the process count and
 * the store; undefined for a process started alone. Refuses a launched process with no store to meet at.
 */
export function acceleratorProcessPlace(
  platform: string,
  numNodes?: number,
  env: NodeJS.ProcessEnv = process.env,
): (ProcessPlace & { coordinator: { host: string; port: number } }) | undefined {
  const place = processPlace(env);
  if (!place) {
    if (numNodes !== undefined && numNodes > 1)
      throw new Error(
        `numNodes is ${numNodes}, but this process was started alone: start ${numNodes} processes with ` +
          `kiln launch --nproc-per-node ${numNodes}, each running the same training`,
      );
    return undefined;
  }
  if (numNodes !== undefined && numNodes !== place.size)
    throw new Error(`numNodes is ${numNodes}, but ${place.size} processes were started: make them equal`);
  const coordinator = coordinatorOf(env);
  if (!coordinator)
    throw new Error(
      `this process is rank ${place.rank} of ${place.size} (${place.source}), but no coordination store is known ` +
        `(KILN_COORDINATOR is unset): training across processes on ${platform} devices needs the store kiln launch serves; ` +
        `start the processes with kiln launch --nproc-per-node ${place.size}`,
    );
  return { ...place, coordinator };
}

/** The group of processes training on GPUs/TPUs: its barriers and agreements go through the coordination store. */
export function joinAcceleratorGroup(place: ProcessPlace, store: KeyValueStore): ProcessGroup {
  return {
    rank: place.rank,
    size: place.size,
    comm: new StoreGroupComm(store, place.rank, place.size),
    collectives: "xla",
    launcherPrefixes: place.source === "kiln",
  };
}

/**
 * The process group this process belongs to, MPI initialized on first call; undefined for a process
 * started alone. `expected` (Lightning's num_nodes: the number of processes) is checked against it.
 */
export function joinProcessGroup(o: { expected?: number; env?: NodeJS.ProcessEnv } = {}): MpiProcessGroup | undefined {
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
    joined = { rank: comm.rank, size: comm.size, comm, collectives: "mpi", launcherPrefixes: place.source === "kiln" };
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
export function currentProcessGroup(): MpiProcessGroup | undefined {
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
