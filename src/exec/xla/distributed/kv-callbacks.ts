// PJRT's key-value store callbacks (kv_get_callback, kv_try_get_callback, kv_put_callback of
// PJRT_Client_Create_Args) answered against the coordination store, from threads that are not the
// JS main thread (see kv-callback-worker.ts for why). Starting them is synchronous, like
// PJRT_Client_Create itself: this thread waits (Atomics.wait) until the workers are connected.
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { workerExecArgv } from "../../../io/worker-options.js";
import type { KvCallbackWorkerData, KvWorkerReady } from "./kv-callback-worker.js";
import type { StoreConnectionData } from "./store-connection-worker.js";

export interface KvStoreCallbacksOptions {
  readonly host: string;
  readonly port: number;
  /** Prepended to every key the plugin uses, so that plugins sharing a store never collide (jaxlib: "cuda:", "tpu:"). */
  readonly keyPrefix: string;
  /** How long to wait for the store to accept the connections (default 30 s). */
  readonly connectTimeoutMs?: number;
  /** How long put and tryGet wait for the store's reply, and get beyond its own timeout (default 60 s). */
  readonly requestTimeoutMs?: number;
}

/** The three callbacks' addresses, for PJRT_Client_Create_Args (user args are unused: 0). */
export interface KvStoreCallbacks {
  readonly get: bigint;
  readonly tryGet: bigint;
  readonly put: bigint;
  /** Stops the workers; only once no client that received the callbacks is left. */
  close(): Promise<void>;
}

const workerUrl = (name: string) => new URL(`./${name}.js`, import.meta.url);

export function startKvStoreCallbacks(o: KvStoreCallbacksOptions): KvStoreCallbacks {
  const where = `${o.host}:${o.port}`;
  const connectTimeoutMs = o.connectTimeoutMs ?? 30_000;
  const requestTimeoutMs = o.requestTimeoutMs ?? 60_000;
  const readySignal = new SharedArrayBuffer(4);
  const roles = ["get", "put"] as const;
  const lanes = roles.map(() => ({ channel: new MessageChannel(), signal: new SharedArrayBuffer(4) }));
  const ready = roles.map(() => new MessageChannel()); // each callback worker reports on its own

  const connection: StoreConnectionData = {
    host: o.host,
    port: o.port,
    connectTimeoutMs,
    lanes: lanes.map((l) => ({ port: l.channel.port1, signal: l.signal })),
  };
  const workers = [
    new Worker(workerUrl("store-connection-worker"), {
      workerData: connection,
      execArgv: workerExecArgv(),
      transferList: lanes.map((l) => l.channel.port1),
    }),
  ];
  roles.forEach((role, i) => {
    const data: KvCallbackWorkerData = {
      role,
      keyPrefix: o.keyPrefix,
      where,
      lane: lanes[i]!.channel.port2,
      laneSignal: lanes[i]!.signal,
      connectTimeoutMs,
      requestTimeoutMs,
      ready: ready[i]!.port2,
      readySignal,
    };
    workers.push(
      new Worker(workerUrl("kv-callback-worker"), { workerData: data, execArgv: workerExecArgv(), transferList: [data.lane, data.ready] }),
    );
  });
  for (const w of workers) w.unref();
  const close = async () => {
    await Promise.all(workers.map((w) => w.terminate()));
    ready.forEach((c) => c.port1.close());
  };

  // Wait for both callback workers (each reports its addresses or why it has none).
  const signal = new Int32Array(readySignal);
  const deadline = Date.now() + connectTimeoutMs + 30_000; // the extra: starting two threads and loading koffi
  const callbacks: Record<string, bigint> = {};
  const errors: string[] = [];
  for (const pending = new Set(ready); pending.size;) {
    const seen = Atomics.load(signal, 0);
    for (const c of pending) {
      const m = receiveMessageOnPort(c.port1);
      if (!m) continue;
      pending.delete(c);
      const r = m.message as KvWorkerReady;
      if ("error" in r) errors.push(r.error);
      else Object.assign(callbacks, r.callbacks);
    }
    if (!pending.size) break;
    const left = deadline - Date.now();
    if (left <= 0) {
      errors.push(`the key-value callback threads did not start within ${connectTimeoutMs + 30_000} ms`);
      break;
    }
    Atomics.wait(signal, 0, seen, left);
  }
  if (errors.length) {
    void close();
    throw new Error(`the PJRT key-value store: ${[...new Set(errors)].join("; ")}`);
  }
  return { get: callbacks.get!, tryGet: callbacks.tryGet!, put: callbacks.put!, close };
}
