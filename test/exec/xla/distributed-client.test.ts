// Client creation as one of many processes: the exact PJRT_Client_Create options Kiln passes to each
// kind of plugin (read back from the native PJRT_NamedValue array), the refusals, real CPU plugins given
// the key-value callbacks (both refuse to be one of many processes, each in its own way), and programs
// compiled for the global device assignment (on one process: every device of the client).
import test from "node:test";
import assert from "node:assert/strict";
import { discoverPjrtPlugin, XlaExecutor } from "../../../src/exec/xla/index.js";
import { distributedCreateOptions, storeKeyPrefix, type DistributedOptions } from "../../../src/exec/xla/distributed/options.js";
import { namedValues, readNamedValues } from "../../../src/exec/xla/pjrt/named-values.js";
import { startStoreInWorker } from "../../helpers/coordination-store-worker.js";
import { ProgramBuilder } from "../../helpers/program-builder.js";
import { pythonSkip, venvSitePackages } from "../../helpers/python.js";
import { jaxlibCpuPluginPath, xlaCpuPluginPath } from "../../helpers/xla-cpu-plugin.js";

const d: DistributedOptions = { nodeId: 1, numNodes: 2, coordinator: { host: "127.0.0.1", port: 29400 } };
const CUDA_DEFAULTS = { platform_name: "cuda", preallocate: true, memory_fraction: 0.75 };

/** What the plugin reads: each option's name, PJRT_NamedValue type and value, in array order. */
function asPassed(options: Parameters<typeof namedValues>[0]) {
  const { array, keep, count } = namedValues(options);
  try {
    return [...readNamedValues(array.address, count)];
  } finally {
    array.free();
    keep.forEach((b) => b.free());
  }
}

test("CUDA: the platform defaults, the caller's options, then node_id and num_nodes as Int64", () => {
  const options = distributedCreateOptions("cuda", { ...CUDA_DEFAULTS, visible_devices: [0] }, d);
  assert.deepEqual(asPassed(options), [
    ["platform_name", "cuda"],
    ["preallocate", true],
    ["memory_fraction", 0.75],
    ["visible_devices", [0n]],
    ["node_id", 1n],
    ["num_nodes", 2n],
  ]);
  assert.equal(storeKeyPrefix("cuda", d), "cuda:");
});

test("libtpu: no node options (its topology comes from TPU_* variables, which must agree), keys prefixed tpu:", () => {
  assert.deepEqual(asPassed(distributedCreateOptions("tpu", {}, d, {})), []);
  const pod = { TPU_WORKER_ID: "1", TPU_WORKER_HOSTNAMES: "t0,t1" };
  assert.deepEqual(asPassed(distributedCreateOptions("tpu", {}, d, pod)), []);
  assert.throws(
    () => distributedCreateOptions("tpu", {}, d, { ...pod, TPU_WORKER_ID: "0" }),
    /nodeId is 1 but the environment says worker 0/,
  );
  assert.throws(
    () => distributedCreateOptions("tpu", {}, d, { ...pod, TPU_WORKER_HOSTNAMES: "t0,t1,t2,t3" }),
    /numNodes is 2 but TPU_WORKER_HOSTNAMES names 4 workers/,
  );
  assert.equal(storeKeyPrefix("tpu", d), "tpu:");
  assert.equal(storeKeyPrefix("explicit", d), "pjrt:");
  assert.equal(storeKeyPrefix("cuda", { ...d, keyPrefix: "gpu:" }), "gpu:");
});

test("refusals name the option and the remedy", () => {
  assert.throws(() => distributedCreateOptions("cpu", {}, d), /CPU PJRT plugins have no cross-process collectives .* MPI/);
  assert.throws(
    () => distributedCreateOptions("cuda", {}, { ...d, nodeId: 2 }),
    /distributed\.nodeId must be an integer from 0 to numNodes - 1 = 1, got 2/,
  );
  assert.throws(() => distributedCreateOptions("cuda", {}, { ...d, numNodes: 0 }), /distributed\.numNodes must be a positive integer/);
  assert.throws(() => distributedCreateOptions("cuda", {}, { ...d, coordinator: { host: "", port: 1 } }), /coordinator\.host/);
  assert.throws(
    () => distributedCreateOptions("cuda", {}, { ...d, coordinator: { host: "h", port: 70000 } }),
    /coordinator\.port must be a TCP port/,
  );
  assert.throws(() => distributedCreateOptions("cuda", { node_id: 0 }, d), /clientOptions\.node_id and distributed both set node_id/);
});

test(
  "XLA's CPU plugins given the key-value callbacks and node options refuse to be one of many processes",
  { skip: pythonSkip },
  async () => {
    const store = await startStoreInWorker();
    try {
      const distributed = { nodeId: 0, numNodes: 2, coordinator: { host: "127.0.0.1", port: store.port } };
      // Found by discovery as a CPU plugin: refused before any client is made.
      const wheel = discoverPjrtPlugin({ env: {}, sitePackages: [venvSitePackages()], includeCpu: true });
      assert.ok(!("notFound" in wheel));
      assert.throws(() => new XlaExecutor(wheel, { distributed }), /CPU PJRT plugins have no cross-process collectives/);
      // The 0.81 wheel as an explicit plugin: it ignores node_id/num_nodes and makes a CPU client: refused.
      const explicit = discoverPjrtPlugin({ pluginPath: xlaCpuPluginPath() });
      assert.ok(!("notFound" in explicit));
      assert.throws(
        () => new XlaExecutor(explicit, { distributed }),
        /is a CPU plugin; XLA's CPU plugins have no cross-process collectives/,
      );
      // jaxlib 0.11.2's XLA (PJRT 0.115) rejects the option names themselves.
      const newer = discoverPjrtPlugin({ pluginPath: jaxlibCpuPluginPath() });
      assert.ok(!("notFound" in newer));
      assert.throws(
        () => new XlaExecutor(newer, { distributed }),
        /cannot run as one of many processes \(PJRT_Client_Create failed \(INVALID_ARGUMENT\): Unexpected option .*(node_id|num_nodes)\)/,
      );
    } finally {
      await store.close();
    }
  },
);

test("compileGlobal: one replica per device of the client, all_reduce across them", { skip: pythonSkip }, async () => {
  const found = discoverPjrtPlugin({ env: {}, sitePackages: [venvSitePackages()], includeCpu: true });
  assert.ok(!("notFound" in found));
  const xla = new XlaExecutor(found, { cpuDeviceCount: 4 });
  try {
    const b = new ProgramBuilder();
    const x = b.input("f32", [3]);
    const program = b.build("all_reduce_global", [b.eqn("all_reduce", [x], {})]);
    const exe = xla.compileGlobal(program);
    assert.equal(exe.replicas, 4);
    assert.deepEqual(exe.localReplicas, [0, 1, 2, 3]);
    const devices = xla.devices();
    const outs = exe.execute(devices.map((dev, r) => [xla.fromHost(Float32Array.from([r, 10 * r, 1]), { shape: [3], dtype: "f32" }, dev)]));
    for (const [r, [o]] of outs.entries()) assert.deepEqual([...((await o!.toHost()) as Float32Array)], [6, 60, 4], `replica ${r}`);
    assert.throws(
      () => exe.execute([[xla.fromHost(new Float32Array(3), { shape: [3], dtype: "f32" })]]),
      /compiled for 4 replicas, got arguments for 1/,
    );
  } finally {
    xla.close();
  }
});
