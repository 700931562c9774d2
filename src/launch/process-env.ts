// Which process of a run this is, from the environment its launcher set: `kiln launch` (KILN_*), torchrun,
// Open MPI's mpirun, MPICH's Hydra (PMI), SLURM's srun, or a Cloud TPU VM. The first launcher whose
// variables are present wins; a half-set or contradictory set is an error that names the variable.

/** The launcher whose environment told a process its place. */
export type ProcessEnvSource = "kiln" | "torchrun" | "slurm" | "openmpi" | "mpich" | "tpu";

/** Which process of a run this is: ranks and sizes, the node, the store's address, and which launcher said so. */
export interface ProcessEnv {
  rank: number;
  worldSize: number;
  localRank: number;
  localWorldSize: number;
  nodeRank: number;
  numNodes: number;
  /** The coordination store (KILN_COORDINATOR; only `kiln launch` serves one). */
  coordinator?: { host: string; port: number };
  source: ProcessEnvSource;
}

type Env = Record<string, string | undefined>;

/** Thrown when the launcher's environment variables are half set or contradict each other; names the variable. */
export class ProcessEnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProcessEnvError";
  }
}

/** Reads integer variables of one source, naming the variable that is malformed. */
function reader(env: Env, source: string) {
  const int = (name: string, min: number): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === "") return undefined;
    const n = Number(raw);
    if (!/^\s*\d+\s*$/.test(raw) || n < min)
      throw new ProcessEnvError(`${name}=${JSON.stringify(raw)} (set by ${source}) must be an integer ≥ ${min}`);
    return n;
  };
  const required = (name: string, min: number, because: string): number => {
    const n = int(name, min);
    if (n === undefined)
      throw new ProcessEnvError(`${because} is set but ${name} is not (${source} sets both): set ${name}, or neither for a single process`);
    return n;
  };
  return { int, required };
}

/** Checks the numbers agree with each other; the message names the variable that contradicts. */
function checked(p: ProcessEnv, names: Record<"rank" | "worldSize" | "localRank" | "localWorldSize" | "nodeRank" | "numNodes", string>) {
  const below = (a: keyof typeof names, b: keyof typeof names) => {
    if (p[a] >= p[b]) throw new ProcessEnvError(`${names[a]}=${p[a]} must be below ${names[b]}=${p[b]} (they count from 0)`);
  };
  below("rank", "worldSize");
  below("localRank", "localWorldSize");
  below("nodeRank", "numNodes");
  if (p.localWorldSize > p.worldSize)
    throw new ProcessEnvError(
      `${names.localWorldSize}=${p.localWorldSize} is more than ${names.worldSize}=${p.worldSize} processes in all`,
    );
  return p;
}

/** "host:port" (a bracketed IPv6 host too), or an error naming `name`. */
export function parseHostPort(value: string, name: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || !(port >= 1 && port <= 65535))
    throw new ProcessEnvError(`${name}=${JSON.stringify(value)} must be HOST:PORT with a port from 1 to 65535, e.g. 10.0.0.1:29500`);
  return { host: (m[1] ?? m[2])!, port };
}

function fromKiln(env: Env): ProcessEnv | undefined {
  if (env.KILN_RANK === undefined && env.KILN_WORLD_SIZE === undefined) return undefined;
  const { int, required } = reader(env, "kiln launch");
  const because = env.KILN_RANK !== undefined ? "KILN_RANK" : "KILN_WORLD_SIZE";
  const rank = required("KILN_RANK", 0, because);
  const worldSize = required("KILN_WORLD_SIZE", 1, because);
  const p: ProcessEnv = {
    rank,
    worldSize,
    localRank: int("KILN_LOCAL_RANK", 0) ?? rank,
    localWorldSize: int("KILN_LOCAL_WORLD_SIZE", 1) ?? worldSize,
    nodeRank: int("KILN_NODE_RANK", 0) ?? 0,
    numNodes: int("KILN_NUM_NODES", 1) ?? 1,
    source: "kiln",
  };
  if (env.KILN_COORDINATOR) p.coordinator = parseHostPort(env.KILN_COORDINATOR, "KILN_COORDINATOR");
  return checked(p, {
    rank: "KILN_RANK",
    worldSize: "KILN_WORLD_SIZE",
    localRank: "KILN_LOCAL_RANK",
    localWorldSize: "KILN_LOCAL_WORLD_SIZE",
    nodeRank: "KILN_NODE_RANK",
    numNodes: "KILN_NUM_NODES",
  });
}

function fromTorchrun(env: Env): ProcessEnv | undefined {
  if (env.RANK === undefined && env.WORLD_SIZE === undefined) return undefined;
  const { int, required } = reader(env, "torchrun");
  const because = env.RANK !== undefined ? "RANK" : "WORLD_SIZE";
  const rank = required("RANK", 0, because);
  const worldSize = required("WORLD_SIZE", 1, because);
  const localWorldSize = int("LOCAL_WORLD_SIZE", 1) ?? worldSize;
  // torchrun's GROUP_RANK / GROUP_WORLD_SIZE are the node's index and the node count.
  return checked(
    {
      rank,
      worldSize,
      localRank: int("LOCAL_RANK", 0) ?? rank % localWorldSize,
      localWorldSize,
      nodeRank: int("GROUP_RANK", 0) ?? Math.floor(rank / localWorldSize),
      numNodes: int("GROUP_WORLD_SIZE", 1) ?? Math.ceil(worldSize / localWorldSize),
      source: "torchrun",
    },
    {
      rank: "RANK",
      worldSize: "WORLD_SIZE",
      localRank: "LOCAL_RANK",
      localWorldSize: "LOCAL_WORLD_SIZE",
      nodeRank: "GROUP_RANK",
      numNodes: "GROUP_WORLD_SIZE",
    },
  );
}

/**
 * The MPI launchers give a rank, a size and a rank on the node; the node's index and the node count assume
 * ranks fill one node after another (mpirun's default placement).
 */
function fromMpi(env: Env, source: "openmpi" | "mpich", v: { rank: string; size: string; localRank: string; localSize: string }) {
  if (env[v.rank] === undefined && env[v.size] === undefined) return undefined;
  const { int, required } = reader(env, source === "openmpi" ? "Open MPI's mpirun" : "MPICH's mpiexec");
  const because = env[v.rank] !== undefined ? v.rank : v.size;
  const rank = required(v.rank, 0, because);
  const worldSize = required(v.size, 1, because);
  const localWorldSize = int(v.localSize, 1) ?? worldSize;
  return checked(
    {
      rank,
      worldSize,
      localRank: int(v.localRank, 0) ?? rank % localWorldSize,
      localWorldSize,
      nodeRank: Math.floor(rank / localWorldSize),
      numNodes: Math.ceil(worldSize / localWorldSize),
      source,
    },
    { rank: v.rank, worldSize: v.size, localRank: v.localRank, localWorldSize: v.localSize, nodeRank: v.rank, numNodes: v.size },
  );
}

/** SLURM's tasks per node, "2(x3),1" style: the count on node `node`. */
function slurmTasksOnNode(value: string, node: number): number | undefined {
  let seen = 0;
  for (const part of value.split(",")) {
    const m = /^(\d+)(?:\(x(\d+)\))?$/.exec(part.trim());
    if (!m) return undefined;
    seen += Number(m[2] ?? 1);
    if (node < seen) return Number(m[1]);
  }
  return undefined;
}

function fromSlurm(env: Env): ProcessEnv | undefined {
  if (env.SLURM_PROCID === undefined) return undefined;
  const { int, required } = reader(env, "SLURM's srun");
  const rank = required("SLURM_PROCID", 0, "SLURM_PROCID");
  // srun sets the step's task count; SLURM_NTASKS is the job's (the same under a plain srun).
  const sizeName = env.SLURM_STEP_NUM_TASKS !== undefined ? "SLURM_STEP_NUM_TASKS" : "SLURM_NTASKS";
  const worldSize = required(sizeName, 1, "SLURM_PROCID");
  const nodeRank = int("SLURM_NODEID", 0) ?? 0;
  const perNode = env.SLURM_STEP_TASKS_PER_NODE ?? env.SLURM_TASKS_PER_NODE;
  const localWorldSize = (perNode && slurmTasksOnNode(perNode, nodeRank)) || worldSize;
  const numNodes = int("SLURM_STEP_NUM_NODES", 1) ?? int("SLURM_NNODES", 1) ?? int("SLURM_JOB_NUM_NODES", 1) ?? 1;
  return checked(
    { rank, worldSize, localRank: int("SLURM_LOCALID", 0) ?? 0, localWorldSize, nodeRank, numNodes, source: "slurm" },
    {
      rank: "SLURM_PROCID",
      worldSize: sizeName,
      localRank: "SLURM_LOCALID",
      localWorldSize: "SLURM_TASKS_PER_NODE",
      nodeRank: "SLURM_NODEID",
      numNodes: "SLURM_NNODES",
    },
  );
}

/** A Cloud TPU VM runs one process per host: the worker's index among TPU_WORKER_HOSTNAMES. */
function fromTpu(env: Env): ProcessEnv | undefined {
  const idName = env.TPU_WORKER_ID !== undefined ? "TPU_WORKER_ID" : "CLOUD_TPU_TASK_ID";
  if (env[idName] === undefined) return undefined;
  const { required } = reader(env, "the Cloud TPU VM");
  const id = required(idName, 0, idName);
  const hosts = (env.TPU_WORKER_HOSTNAMES ?? "").split(",").filter((h) => h.trim() !== "");
  if (hosts.length === 0)
    throw new ProcessEnvError(
      `${idName} is set but TPU_WORKER_HOSTNAMES is not (the comma-separated hosts of the slice): set both, or neither`,
    );
  if (id >= hosts.length)
    throw new ProcessEnvError(`${idName}=${id} must be below the ${hosts.length} hosts of TPU_WORKER_HOSTNAMES (workers count from 0)`);
  return checked(
    { rank: id, worldSize: hosts.length, localRank: 0, localWorldSize: 1, nodeRank: id, numNodes: hosts.length, source: "tpu" },
    {
      rank: idName,
      worldSize: "TPU_WORKER_HOSTNAMES",
      localRank: idName,
      localWorldSize: "TPU_WORKER_HOSTNAMES",
      nodeRank: idName,
      numNodes: "TPU_WORKER_HOSTNAMES",
    },
  );
}

/**
 * This process's place in a multi-process run, or undefined when it runs alone. Sources are read in the
 * order KILN_*, torchrun, Open MPI, MPICH/PMI, SLURM, Cloud TPU; the first present wins.
 */
export function readProcessEnv(env: Env = process.env): ProcessEnv | undefined {
  return (
    fromKiln(env) ??
    fromTorchrun(env) ??
    fromMpi(env, "openmpi", {
      rank: "OMPI_COMM_WORLD_RANK",
      size: "OMPI_COMM_WORLD_SIZE",
      localRank: "OMPI_COMM_WORLD_LOCAL_RANK",
      localSize: "OMPI_COMM_WORLD_LOCAL_SIZE",
    }) ??
    fromMpi(env, "mpich", { rank: "PMI_RANK", size: "PMI_SIZE", localRank: "MPI_LOCALRANKID", localSize: "MPI_LOCALNRANKS" }) ??
    fromSlurm(env) ??
    fromTpu(env)
  );
}
