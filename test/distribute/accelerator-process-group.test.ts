// Processes that train on GPUs/TPUs as one of several (XLA's collectives sum the gradients): where
// they meet (KILN_COORDINATOR, refused without it), the XLA client they ask for (node_id = rank,
// num_nodes = world size; XLA's CPU plugin refuses it, which shows what was asked), and the group
// operations over the coordination store that the Trainer uses besides the gradient sum.
import test from "node:test";
import assert from "node:assert/strict";
import {
  acceleratorProcessPlace,
  agreeOnSettings,
  agreeToStop,
  coordinatorOf,
  joinAcceleratorGroup,
} from "../../src/distribute/multi-process.js";
import { launchedAcceleratorPlace, selectDevices } from "../../src/distribute/devices.js";
import { discoverCpuPlugin } from "../../src/exec/xla/index.js";
import { StoreClient, StoreServer } from "../../src/launch/index.js";
import { Trainer } from "../../src/train/trainer.js";

const launched = (rank: number, size: number, extra: Record<string, string> = {}) => ({
  KILN_RANK: String(rank),
  KILN_WORLD_SIZE: String(size),
  KILN_LOCAL_RANK: String(rank),
  KILN_LOCAL_WORLD_SIZE: String(size),
  ...extra,
});

test("a launched GPU/TPU process meets the others at KILN_COORDINATOR; without it, one line names kiln launch", () => {
  assert.equal(acceleratorProcessPlace("gpu", undefined, {}), undefined);
  assert.deepEqual(acceleratorProcessPlace("gpu", undefined, launched(1, 2, { KILN_COORDINATOR: "127.0.0.1:29500" })), {
    rank: 1,
    size: 2,
    source: "kiln",
    coordinator: { host: "127.0.0.1", port: 29500 },
  });
  assert.throws(
    () => acceleratorProcessPlace("gpu", undefined, launched(1, 2)),
    (e: Error) =>
      !e.message.includes("\n") &&
      e.message ===
        "this process is rank 1 of 2 (kiln), but no coordination store is known (KILN_COORDINATOR is unset): training across " +
          "processes on gpu devices needs the store kiln launch serves; start the processes with kiln launch --nproc-per-node 2",
  );
  assert.throws(
    () => acceleratorProcessPlace("tpu", 2, {}),
    /numNodes is 2, but this process was started alone: .*kiln launch --nproc-per-node 2/,
  );
  assert.throws(() => acceleratorProcessPlace("tpu", 4, launched(0, 2, { KILN_COORDINATOR: "h:1" })), /numNodes is 4, but 2 processes/);
  assert.deepEqual(coordinatorOf({ KILN_COORDINATOR: "[::1]:7000" }), { host: "::1", port: 7000 });
  assert.throws(() => coordinatorOf({ KILN_COORDINATOR: "localhost" }), /KILN_COORDINATOR must be host:port .*got "localhost"/);
});

const cpuPlugin = discoverCpuPlugin()?.path;

test(
  "selectDevices asks a launched GPU process's XLA client for node_id = rank, num_nodes = world size and the coordinator",
  {
    skip: cpuPlugin ? false : "XLA's CPU plugin (xla-cpu-pjrt) is not installed",
  },
  async () => {
    // XLA's CPU plugin, named explicitly, is known to be one only once its client is made: the client
    // reaches the store, then the plugin refuses node_id/num_nodes (it has no cross-process collectives).
    const server = await StoreServer.start({});
    const where = `127.0.0.1:${server.port}`;
    try {
      assert.throws(
        () => selectDevices({ accelerator: "gpu", pjrtPlugin: cpuPlugin!, env: launched(1, 2, { KILN_COORDINATOR: where }) }),
        (e: Error) =>
          e.message.startsWith(
            `rank 1 of 2 could not create its XLA client as one of 2 processes (nodeId 1, numNodes 2, coordinator ${where}): distributed:`,
          ) && /cannot run as one of many processes|is a CPU plugin/.test(e.message),
      );
    } finally {
      await server.close();
    }
    // The same process without a coordinator is refused before any client is made.
    assert.throws(() => selectDevices({ accelerator: "gpu", pjrtPlugin: cpuPlugin!, env: launched(1, 2) }), /KILN_COORDINATOR is unset/);
    // "auto" makes the distributed client only where discovery finds a CUDA or TPU plugin: a CPU plugin
    // (named, or found) and no plugin leave a launched process on the CPU path (MPI), as before.
    assert.equal(launchedAcceleratorPlace({ accelerator: "auto", pjrtPlugin: cpuPlugin!, env: launched(1, 2) }), undefined);
    assert.equal(launchedAcceleratorPlace({ accelerator: "cpu", env: launched(1, 2) }), undefined);
    assert.equal(launchedAcceleratorPlace({ accelerator: "gpu", env: {} }), undefined);
    // Started alone, the CPU plugin is just not a GPU: the local path, as before.
    assert.throws(
      () => selectDevices({ accelerator: "gpu", pjrtPlugin: cpuPlugin!, env: {} }),
      /accelerator = "gpu" \(a string\) was requested but none was found/,
    );
  },
);

test(
  "the Trainer of a launched GPU process creates the distributed client (from process.env), and refuses without a coordinator",
  {
    skip: cpuPlugin ? false : "XLA's CPU plugin (xla-cpu-pjrt) is not installed",
  },
  async () => {
    const saved = { ...process.env };
    const server = await StoreServer.start({});
    try {
      Object.assign(process.env, launched(0, 2, { KILN_COORDINATOR: `127.0.0.1:${server.port}` }));
      const coordinationStore = await StoreClient.connect({ host: "127.0.0.1", port: server.port });
      // Without the store, refused before a client is made (it would wait for the other process).
      assert.throws(
        () => new Trainer({ outputDir: "/nonexistent/run", accelerator: "gpu", pjrtPlugin: cpuPlugin!, progress: false }),
        (e: Error) =>
          e.message.startsWith("this process is rank 0 of 2: give the Trainer coordinationStore") &&
          e.message.includes(`StoreClient.connect({ host: "127.0.0.1", port: ${server.port} })`),
      );
      assert.throws(
        () =>
          new Trainer({ outputDir: "/nonexistent/run", accelerator: "gpu", pjrtPlugin: cpuPlugin!, progress: false, coordinationStore }),
        (e: Error) =>
          e.message.startsWith(
            "rank 0 of 2 could not create its XLA client as one of 2 processes " +
              `(nodeId 0, numNodes 2, coordinator 127.0.0.1:${server.port})`,
          ),
      );
      delete process.env.KILN_COORDINATOR;
      assert.throws(
        () => new Trainer({ outputDir: "/nonexistent/run", accelerator: "gpu", pjrtPlugin: cpuPlugin!, progress: false }),
        /rank 0 of 2 \(kiln\), but no coordination store is known .*kiln launch --nproc-per-node 2$/,
      );
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
      await server.close();
    }
  },
);

test("the group's barriers, broadcasts, sums and agreements go through the coordination store", async () => {
  const server = await StoreServer.start({});
  try {
    const coordinator = { host: "127.0.0.1", port: server.port };
    const groups = await Promise.all(
      [0, 1].map(async (rank) => joinAcceleratorGroup({ rank, size: 2, source: "kiln" }, await StoreClient.connect(coordinator))),
    );
    assert.deepEqual(
      groups.map((g) => [g.rank, g.size, g.collectives, g.launcherPrefixes]),
      [
        [0, 2, "xla", true],
        [1, 2, "xla", true],
      ],
    );
    await Promise.all(groups.map((g) => g.comm.barrier({ forWrites: true })));
    const bufs = groups.map((g) => new Float64Array([g.rank === 0 ? 7.5 : 0, g.rank === 0 ? -1 : 0]));
    await Promise.all(groups.map((g, r) => g.comm.broadcast(bufs[r]!, 0)));
    assert.deepEqual(
      bufs.map((b) => [...b]),
      [
        [7.5, -1],
        [7.5, -1],
      ],
    );
    const sums = groups.map((g) => new Float32Array([g.rank + 1, 10 * (g.rank + 1)]));
    await Promise.all(groups.map((g, r) => g.comm.allReduceSum(sums[r]!)));
    assert.deepEqual(
      sums.map((b) => [...b]),
      [
        [3, 30],
        [3, 30],
      ],
    );
    const stops = await Promise.all(groups.map((g) => agreeToStop(g, g.rank === 1, false)));
    assert.deepEqual(stops, [
      { stop: true, interrupted: false },
      { stop: true, interrupted: false },
    ]);
    await Promise.all(groups.map((g) => agreeOnSettings(g, { lr: 0.001, batch: 8 })));
    const differing = await Promise.allSettled(groups.map((g) => agreeOnSettings(g, { lr: 0.001, batch: 8 * (g.rank + 1) })));
    assert.deepEqual(
      differing.map((d) => d.status === "rejected" && (d.reason as Error).message),
      [
        "the settings of rank 1 differ from rank 0's (named in their output)",
        "rank 1's settings differ from rank 0's: batch 8 on rank 0, 16 here: start every process with the same command, data and model",
      ],
    );
    // The keys of calls every rank has passed are deleted: the store does not grow with the steps.
    const look = await StoreClient.connect(coordinator);
    assert.equal(await look.tryGet("kiln/group/1/broadcast"), undefined);
    assert.equal(await look.tryGet("kiln/group/2/sum/0"), undefined);
    assert.equal(await look.tryGet("kiln/group/3/max/1"), undefined);
    assert.ok(await look.tryGet("kiln/group/9/sum/1"), "the last all-reduce's keys stay until a later call");
  } finally {
    await server.close();
  }
});
