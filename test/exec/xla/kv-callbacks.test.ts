// PJRT's key-value store callbacks, called as a plugin calls them: through their function pointers,
// from native threads that are not the JS thread, while the JS thread is blocked in a synchronous
// native call (test/exec/xla/native/kv-caller.c), against a coordination store on 127.0.0.1 that
// follows the many-process wire protocol (src/launch/store-server.ts, run on a worker thread).
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { connect } from "node:net";
import { startKvStoreCallbacks, type KvStoreCallbacks } from "../../../src/exec/xla/distributed/kv-callbacks.js";
import { encodeMessage } from "../../../src/io/store-wire.js";
import { PJRT_ERROR_CODES as CODE } from "../../../src/exec/xla/distributed/error-codes.js";
import { startStoreInWorker, type StoreInWorker } from "../../helpers/coordination-store-worker.js";
import { buildKvCaller, KvOp, loadKvCaller, type KvCaller } from "../../helpers/kv-caller.js";
import { repoRoot } from "../../helpers/repo-paths.js";

const libPath = buildKvCaller();
const caller: KvCaller = loadKvCaller(libPath);

async function withStore(fn: (store: StoreInWorker, open: (prefix: string) => KvStoreCallbacks) => Promise<void>) {
  const store = await startStoreInWorker();
  const opened: KvStoreCallbacks[] = [];
  try {
    await fn(store, (keyPrefix) => {
      const cb = startKvStoreCallbacks({ host: "127.0.0.1", port: store.port, keyPrefix, requestTimeoutMs: 5000 });
      opened.push(cb);
      return cb;
    });
  } finally {
    await Promise.all(opened.map((c) => c.close()));
    await store.close();
  }
}

test("get, tryGet and put answer from plugin threads while the JS thread is blocked", async () => {
  await withStore(async (store, open) => {
    const kv = open("test:");
    const missing = caller.call(KvOp.tryGet, kv.tryGet, "missing");
    assert.equal(missing.code, CODE.NOT_FOUND, missing.result.toString());
    assert.match(missing.result.toString(), /tryGet test:missing: key "test:missing" is not set/);

    const value = Uint8Array.from([0, 1, 2, 255, 0, 128]); // binary, with NULs
    assert.equal(caller.call(KvOp.put, kv.put, "k", value).code, 0);
    const again = caller.call(KvOp.put, kv.put, "k", value);
    assert.equal(again.code, CODE.ALREADY_EXISTS, again.result.toString());

    const got = caller.call(KvOp.get, kv.get, "k", undefined, 1000);
    assert.equal(got.code, 0, got.result.toString());
    assert.deepEqual([...got.result], [...value]);
    const tried = caller.call(KvOp.tryGet, kv.tryGet, "k");
    assert.deepEqual([tried.code, [...tried.result]], [0, [...value]]);

    const late = caller.call(KvOp.get, kv.get, "absent", undefined, 300);
    assert.equal(late.code, CODE.DEADLINE_EXCEEDED, late.result.toString());
    assert.ok(late.ms >= 290, `the get gave up after ${late.ms} ms, not its 300 ms timeout`);

    // A get blocked on a key does not hold up a put from another thread of the same process.
    const both = caller.getWhilePut(kv.get, kv.put, "put-later", 10_000, 200);
    assert.equal(both.code, 0);
    assert.ok(both.ms >= 150 && both.ms < 5000, `the get returned after ${both.ms} ms`);

    const log = await store.log();
    assert.deepEqual(
      log.map((l) => l.request),
      [
        { op: "tryGet", key: "test:missing" },
        { op: "put", key: "test:k", value: Buffer.from(value).toString("base64"), overwrite: false },
        { op: "put", key: "test:k", value: Buffer.from(value).toString("base64"), overwrite: false },
        { op: "get", key: "test:k", timeoutMs: 1000 },
        { op: "tryGet", key: "test:k" },
        { op: "get", key: "test:absent", timeoutMs: 300 },
        { op: "get", key: "test:put-later", timeoutMs: 10_000 },
        { op: "put", key: "test:put-later", value: Buffer.from("late").toString("base64"), overwrite: false },
      ],
    );
  });
});

test("the callbacks also answer when the plugin calls them on the JS thread itself, inside the native call", async () => {
  // XLA's GPU client puts its own topology on the thread that called PJRT_Client_Create.
  await withStore(async (store, open) => {
    const kv = open("cuda:");
    assert.equal(caller.callHere(KvOp.put, kv.put, "local_topology/cuda/0", Buffer.from("topology")).code, 0);
    const got = caller.callHere(KvOp.get, kv.get, "local_topology/cuda/0", undefined, 1000);
    assert.deepEqual([got.code, got.result.toString()], [0, "topology"]);
    const missing = caller.callHere(KvOp.tryGet, kv.tryGet, "local_topology/cuda/1");
    assert.equal(missing.code, CODE.NOT_FOUND);
    assert.equal((await store.log()).length, 3);
  });
});

test("XLA's GPU topology exchange between two processes' callbacks: the store traffic, in order per node", async () => {
  await withStore(async (store, open) => {
    const node0 = open("cuda:"),
      node1 = open("cuda:");
    const code = caller.exchangeTopologies([node0.get, node0.tryGet, node0.put, node1.get, node1.tryGet, node1.put]);
    assert.equal(code, 0);
    const log = (await store.log()).map((l) => l.request);
    const keyOf = (r: (typeof log)[number]) => `${r.op} ${"key" in r ? r.key : ""}`;
    assert.deepEqual(log.map(keyOf).sort(), [
      "get cuda:global_topology/cuda",
      "get cuda:local_topology/cuda/0",
      "get cuda:local_topology/cuda/1",
      "put cuda:global_topology/cuda",
      "put cuda:local_topology/cuda/0",
      "put cuda:local_topology/cuda/1",
    ]);
    const at = (s: string) => log.findIndex((r) => keyOf(r) === s);
    assert.ok(at("put cuda:global_topology/cuda") > at("put cuda:local_topology/cuda/1"), "node 0 puts the global topology last");
    assert.ok(log.filter((r) => r.op === "get").every((r) => r.op === "get" && r.timeoutMs === 10_000));
  });
});

test("an aborted store reaches a blocked get as ABORTED", async () => {
  await withStore(async (store, open) => {
    const kv = open("test:");
    // Another rank's failure, told to the store before this process's get.
    const s = connect({ host: "127.0.0.1", port: store.port });
    await new Promise((r) => s.once("connect", r));
    s.write(encodeMessage({ op: "abort", rank: 1, reason: "killed" }));
    await new Promise((r) => s.once("data", r));
    s.destroy();
    const r = caller.call(KvOp.get, kv.get, "never", undefined, 5000);
    assert.equal(r.code, CODE.ABORTED, r.result.toString());
    assert.match(r.result.toString(), /rank 1 failed: killed/);
  });
});

test("an unreachable coordination store is refused at once, naming it", async () => {
  const store = await startStoreInWorker();
  const port = store.port;
  await store.close();
  assert.throws(
    () => startKvStoreCallbacks({ host: "127.0.0.1", port, keyPrefix: "cuda:", connectTimeoutMs: 5000 }),
    new RegExp(`the PJRT key-value store: cannot connect to the coordination store at 127\\.0\\.0\\.1:${port}: connect ECONNREFUSED`),
  );
});

test("without the worker threads: callbacks registered on the JS thread deadlock (bounded: killed after 5 s)", () => {
  // The same call, but the callback is registered on the JS main thread, which is blocked in the native
  // call: koffi queues the callback to that thread's event loop, which never runs again.
  const script = `
    import koffi from "koffi";
    const lib = koffi.load(${JSON.stringify(libPath)});
    const call = lib.func("int kiln_kv_call(int op, void *fn, const char *key, const uint8_t *value, size_t value_size, " +
      "int timeout_ms, _Out_ uint8_t *result, _Out_ size_t *result_size, _Out_ double *elapsed_ms)");
    const proto = koffi.proto("void *KvCallback(void *args)");
    const tryGet = koffi.address(koffi.register(() => null, koffi.pointer(proto)));
    console.log("calling");
    call(1, tryGet, "k", null, 0, 0, Buffer.alloc(1000), [0], [0]);
    console.log("returned");
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot(), encoding: "utf8", timeout: 5000 });
  assert.equal(r.stdout.trim(), "calling", `stdout: ${r.stdout}\nstderr: ${r.stderr}`);
  assert.equal(r.signal, "SIGTERM", "the process had to be killed: the callback never ran");
});
