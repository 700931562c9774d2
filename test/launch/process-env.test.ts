// readProcessEnv: each launcher's variables as that launcher sets them, the order in which sources are
// read, and half-set or contradictory settings refused with one line naming the variable.
import test from "node:test";
import assert from "node:assert/strict";
import { readProcessEnv, ProcessEnvError } from "../../src/launch/index.js";

test("a process alone: no launcher's variables, undefined", () => {
  assert.equal(readProcessEnv({ PATH: "/usr/bin", HOME: "/root" }), undefined);
});

test("kiln launch's variables, the coordinator included (an IPv6 host in brackets too)", () => {
  const env = {
    KILN_RANK: "5",
    KILN_WORLD_SIZE: "8",
    KILN_LOCAL_RANK: "1",
    KILN_LOCAL_WORLD_SIZE: "4",
    KILN_NODE_RANK: "1",
    KILN_NUM_NODES: "2",
    KILN_COORDINATOR: "10.0.0.1:29500",
  };
  assert.deepEqual(readProcessEnv(env), {
    rank: 5,
    worldSize: 8,
    localRank: 1,
    localWorldSize: 4,
    nodeRank: 1,
    numNodes: 2,
    coordinator: { host: "10.0.0.1", port: 29500 },
    source: "kiln",
  });
  assert.deepEqual(readProcessEnv({ ...env, KILN_COORDINATOR: "[fe80::1]:1234" })?.coordinator, { host: "fe80::1", port: 1234 });
  // Only the rank and the size: one node, all of its processes.
  assert.deepEqual(readProcessEnv({ KILN_RANK: "1", KILN_WORLD_SIZE: "2" }), {
    rank: 1,
    worldSize: 2,
    localRank: 1,
    localWorldSize: 2,
    nodeRank: 0,
    numNodes: 1,
    source: "kiln",
  });
});

test("torchrun's variables (GROUP_RANK is the node), with no Kiln coordinator", () => {
  const env = {
    RANK: "3",
    WORLD_SIZE: "4",
    LOCAL_RANK: "1",
    LOCAL_WORLD_SIZE: "2",
    GROUP_RANK: "1",
    MASTER_ADDR: "h",
    MASTER_PORT: "29500",
  };
  assert.deepEqual(readProcessEnv(env), {
    rank: 3,
    worldSize: 4,
    localRank: 1,
    localWorldSize: 2,
    nodeRank: 1,
    numNodes: 2,
    source: "torchrun",
  });
});

test("Open MPI's and MPICH's variables; nodes assume ranks fill one node after another", () => {
  assert.deepEqual(
    readProcessEnv({
      OMPI_COMM_WORLD_RANK: "5",
      OMPI_COMM_WORLD_SIZE: "6",
      OMPI_COMM_WORLD_LOCAL_RANK: "2",
      OMPI_COMM_WORLD_LOCAL_SIZE: "3",
    }),
    { rank: 5, worldSize: 6, localRank: 2, localWorldSize: 3, nodeRank: 1, numNodes: 2, source: "openmpi" },
  );
  assert.deepEqual(readProcessEnv({ PMI_RANK: "2", PMI_SIZE: "4", MPI_LOCALRANKID: "0", MPI_LOCALNRANKS: "2" }), {
    rank: 2,
    worldSize: 4,
    localRank: 0,
    localWorldSize: 2,
    nodeRank: 1,
    numNodes: 2,
    source: "mpich",
  });
});

test("SLURM's srun variables, tasks per node in SLURM's compressed form", () => {
  const env = {
    SLURM_PROCID: "4",
    SLURM_NTASKS: "5",
    SLURM_LOCALID: "0",
    SLURM_NODEID: "2",
    SLURM_NNODES: "3",
    SLURM_TASKS_PER_NODE: "2(x2),1",
  };
  assert.deepEqual(readProcessEnv(env), {
    rank: 4,
    worldSize: 5,
    localRank: 0,
    localWorldSize: 1,
    nodeRank: 2,
    numNodes: 3,
    source: "slurm",
  });
});

test("a Cloud TPU VM: one process per host of TPU_WORKER_HOSTNAMES", () => {
  const hosts = "t1k-0,t1k-1,t1k-2,t1k-3";
  const expected = { rank: 2, worldSize: 4, localRank: 0, localWorldSize: 1, nodeRank: 2, numNodes: 4, source: "tpu" };
  assert.deepEqual(readProcessEnv({ TPU_WORKER_ID: "2", TPU_WORKER_HOSTNAMES: hosts }), expected);
  assert.deepEqual(readProcessEnv({ CLOUD_TPU_TASK_ID: "2", TPU_WORKER_HOSTNAMES: hosts }), expected);
});

test("sources are read in order: Kiln's first, then torchrun, Open MPI, MPICH, SLURM, TPU", () => {
  const all = {
    KILN_RANK: "0",
    KILN_WORLD_SIZE: "2",
    RANK: "1",
    WORLD_SIZE: "2",
    OMPI_COMM_WORLD_RANK: "0",
    OMPI_COMM_WORLD_SIZE: "3",
    PMI_RANK: "0",
    PMI_SIZE: "4",
    SLURM_PROCID: "0",
    SLURM_NTASKS: "5",
    TPU_WORKER_ID: "0",
    TPU_WORKER_HOSTNAMES: "a,b,c,d,e,f",
  };
  const order: string[] = [];
  const env: Record<string, string | undefined> = { ...all };
  for (const drop of [
    ["KILN_RANK", "KILN_WORLD_SIZE"],
    ["RANK", "WORLD_SIZE"],
    ["OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"],
    ["PMI_RANK", "PMI_SIZE"],
    ["SLURM_PROCID"],
    ["TPU_WORKER_ID"],
  ]) {
    order.push(readProcessEnv(env)?.source ?? "none");
    for (const k of drop) delete env[k];
  }
  order.push(readProcessEnv(env)?.source ?? "none");
  assert.deepEqual(order, ["kiln", "torchrun", "openmpi", "mpich", "slurm", "tpu", "none"]);
});

test("incomplete or contradictory settings are refused in one line naming the variable", () => {
  const cases: [Record<string, string>, string][] = [
    [
      { KILN_RANK: "1" },
      "KILN_RANK is set but KILN_WORLD_SIZE is not (kiln launch sets both): set KILN_WORLD_SIZE, or neither for a single process",
    ],
    [
      { KILN_WORLD_SIZE: "2" },
      "KILN_WORLD_SIZE is set but KILN_RANK is not (kiln launch sets both): set KILN_RANK, or neither for a single process",
    ],
    [{ KILN_RANK: "2", KILN_WORLD_SIZE: "2" }, "KILN_RANK=2 must be below KILN_WORLD_SIZE=2 (they count from 0)"],
    [{ KILN_RANK: "one", KILN_WORLD_SIZE: "2" }, 'KILN_RANK="one" (set by kiln launch) must be an integer ≥ 0'],
    [{ KILN_RANK: "0", KILN_WORLD_SIZE: "0" }, 'KILN_WORLD_SIZE="0" (set by kiln launch) must be an integer ≥ 1'],
    [
      { KILN_RANK: "0", KILN_WORLD_SIZE: "2", KILN_LOCAL_WORLD_SIZE: "4" },
      "KILN_LOCAL_WORLD_SIZE=4 is more than KILN_WORLD_SIZE=2 processes in all",
    ],
    [{ KILN_RANK: "0", KILN_WORLD_SIZE: "2", KILN_NODE_RANK: "1" }, "KILN_NODE_RANK=1 must be below KILN_NUM_NODES=1 (they count from 0)"],
    [
      { KILN_RANK: "0", KILN_WORLD_SIZE: "2", KILN_COORDINATOR: "10.0.0.1" },
      'KILN_COORDINATOR="10.0.0.1" must be HOST:PORT with a port from 1 to 65535, e.g. 10.0.0.1:29500',
    ],
    [{ RANK: "0" }, "RANK is set but WORLD_SIZE is not (torchrun sets both): set WORLD_SIZE, or neither for a single process"],
    [
      { RANK: "1", WORLD_SIZE: "4", LOCAL_RANK: "2", LOCAL_WORLD_SIZE: "2" },
      "LOCAL_RANK=2 must be below LOCAL_WORLD_SIZE=2 (they count from 0)",
    ],
    [
      { OMPI_COMM_WORLD_RANK: "-1", OMPI_COMM_WORLD_SIZE: "2" },
      `OMPI_COMM_WORLD_RANK="-1" (set by Open MPI's mpirun) must be an integer ≥ 0`,
    ],
    [{ PMI_SIZE: "2" }, "PMI_SIZE is set but PMI_RANK is not (MPICH's mpiexec sets both): set PMI_RANK, or neither for a single process"],
    [{ SLURM_PROCID: "3", SLURM_NTASKS: "2" }, "SLURM_PROCID=3 must be below SLURM_NTASKS=2 (they count from 0)"],
    [
      { TPU_WORKER_ID: "1" },
      "TPU_WORKER_ID is set but TPU_WORKER_HOSTNAMES is not (the comma-separated hosts of the slice): set both, or neither",
    ],
    [
      { TPU_WORKER_ID: "2", TPU_WORKER_HOSTNAMES: "a,b" },
      "TPU_WORKER_ID=2 must be below the 2 hosts of TPU_WORKER_HOSTNAMES (workers count from 0)",
    ],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => readProcessEnv(env),
      (e: unknown) => e instanceof ProcessEnvError && e.message === message && !e.message.includes("\n"),
      `${JSON.stringify(env)} → ${message}`,
    );
  }
});
