// A worker thread that owns PJRT key-value callbacks and answers them synchronously.
//
// Why a worker: plugins call the callbacks from their own threads, and koffi runs a JS callback that
// arrives on a foreign thread on the event loop of the JS thread that registered it (koffi's
// RelayCallback → RelayAsync through that thread's napi threadsafe function), blocking the caller
// until it returns. Registered on the JS main thread, they would wait for a thread that is itself
// blocked in PJRT_Client_Create (or in a synchronous read) — a deadlock. Registered here, they run on
// this thread's event loop, which nothing else uses. A callback forwards its request to the store's
// connection worker and waits for the reply with Atomics.wait (it must return synchronously).
//
// One worker answers `get`, another `put` and `tryGet`: a get may block until another process puts
// its key, and the callbacks of one worker run one at a time, so puts must not queue behind it.
import koffi from "koffi";
import { receiveMessageOnPort, workerData, type MessagePort } from "node:worker_threads";
import { fieldOf, type StructLayout } from "../pjrt/layout.js";
import { S } from "../pjrt/structs.js";
import type { LaneOutcome, LaneReply } from "./store-connection-worker.js";
import { MAX_TIMEOUT_MS, type StoreRequest } from "../../../io/store-wire.js";
import { PJRT_ERROR_CODES } from "./error-codes.js";

export interface KvCallbackWorkerData {
  readonly role: "get" | "put";
  /** Prepended to every key (jaxlib's platform prefix, e.g. "cuda:"). */
  readonly keyPrefix: string;
  /** How the store is named in messages (host:port). */
  readonly where: string;
  readonly lane: MessagePort;
  readonly laneSignal: SharedArrayBuffer;
  readonly connectTimeoutMs: number;
  /** How long put and tryGet wait for the store's reply. */
  readonly requestTimeoutMs: number;
  /** Where this worker reports its callbacks' addresses (or why it has none), then bumps `readySignal`. */
  readonly ready: MessagePort;
  readonly readySignal: SharedArrayBuffer;
}

/** What a callback worker reports once: its callbacks' addresses, or why it could not start. */
export type KvWorkerReady = { readonly role: "get" | "put"; readonly callbacks: Record<string, bigint> } | { readonly error: string };

const data = workerData as KvCallbackWorkerData;
const laneSignal = new Int32Array(data.laneSignal);
let nextId = 1;

/** Waits (blocking this thread) for the reply to request `id`, or a DEADLINE_EXCEEDED after `ms`. */
function awaitReply(id: number, ms: number, what: string): LaneOutcome {
  const deadline = Date.now() + ms;
  for (;;) {
    const seen = Atomics.load(laneSignal, 0);
    for (let m = receiveMessageOnPort(data.lane); m; m = receiveMessageOnPort(data.lane)) {
      const r = m.message as LaneReply;
      if (r.id === id) return r.reply; // older ids are replies that came after their request gave up
    }
    const left = deadline - Date.now();
    if (left <= 0) return { error: "DEADLINE_EXCEEDED", message: `${data.where} did not answer ${what} within ${ms} ms` };
    Atomics.wait(laneSignal, 0, seen, left);
  }
}

function request(req: StoreRequest, ms: number, what: string): LaneOutcome {
  const id = nextId++;
  data.lane.postMessage({ id, request: req });
  return awaitReply(id, ms, what);
}

// Native pieces: values handed to the plugin are malloc'd, and the deleter it calls is libc's free.
const libc = koffi.load("libc.so.6");
const malloc = libc.func("void *malloc(size_t size)") as (n: number) => bigint | null;
const FREE = libc.symbol("free") as bigint;
const CallbackError = koffi.proto("void *KilnPjrtCallbackError(int code, const char *message, size_t message_size)");
const KvCallback = koffi.proto("void *KilnPjrtKeyValueCallback(void *args)");

function view(address: bigint, layout: StructLayout): DataView {
  return new DataView(koffi.view(address, layout.byteLength));
}
const off = (layout: StructLayout, name: string) => fieldOf(layout, name).offset;
const word = (v: DataView, layout: StructLayout, name: string) => v.getBigUint64(off(layout, name), true);

function bytesAt(address: bigint, size: bigint): Buffer {
  return size === 0n ? Buffer.alloc(0) : Buffer.from(new Uint8Array(koffi.view(address, Number(size))));
}

/** Returns a PJRT_Error* made by the plugin's `callback_error` (a pointer to its function pointer). */
function pjrtError(v: DataView, layout: StructLayout, code: string, message: string): bigint | null {
  const at = word(v, layout, "callback_error");
  if (!at) return null; // no way to report it; XLA always passes one
  const fn = new DataView(koffi.view(at, 8)).getBigUint64(0, true);
  const make = koffi.decode(fn, CallbackError) as (c: number, m: string, n: number) => bigint | null;
  const text = `${message} (the PJRT key-value store at ${data.where})`;
  return make(PJRT_ERROR_CODES[code] ?? PJRT_ERROR_CODES.UNKNOWN!, text, Buffer.byteLength(text));
}

/** Hands a value to the plugin: malloc'd bytes, their size, and free as the deleter. */
function giveValue(v: DataView, layout: StructLayout, base64: string): void {
  const bytes = Buffer.from(base64, "base64");
  const p = malloc(Math.max(bytes.length, 1));
  if (!p) throw new Error(`malloc(${bytes.length}) failed`);
  if (bytes.length) new Uint8Array(koffi.view(p, bytes.length)).set(bytes);
  v.setBigUint64(off(layout, "value"), p, true);
  v.setBigUint64(off(layout, "value_size"), BigInt(bytes.length), true);
  v.setBigUint64(off(layout, "value_deleter_callback"), FREE, true);
}

/**
 * Runs a callback body; an exception becomes an INTERNAL error for the plugin (koffi would
 * otherwise return NULL, which the plugin reads as success).
 */
function guarded(layout: StructLayout, body: (v: DataView) => bigint | null): (args: bigint) => bigint | null {
  return (args) => {
    const v = view(args, layout);
    try {
      return body(v);
    } catch (e) {
      return pjrtError(v, layout, "INTERNAL", `the key-value callback failed: ${(e as Error).message}`);
    }
  };
}

function keyOf(v: DataView, layout: StructLayout): string {
  return data.keyPrefix + bytesAt(word(v, layout, "key"), word(v, layout, "key_size")).toString("utf8");
}

const G = S.KeyValueGetCallback,
  T = S.KeyValueTryGetCallback,
  P = S.KeyValuePutCallback;

/** kv_get_callback: blocks until the key exists or timeout_in_ms passes (a negative timeout: no limit). */
const onGet = guarded(G, (v) => {
  const key = keyOf(v, G);
  const timeout = v.getInt32(off(G, "timeout_in_ms"), true);
  const timeoutMs = timeout < 0 ? MAX_TIMEOUT_MS : timeout;
  // The store answers DEADLINE_EXCEEDED itself at timeoutMs; the extra wait covers the round trip.
  const r = request({ op: "get", key, timeoutMs }, Math.min(timeoutMs + data.requestTimeoutMs, MAX_TIMEOUT_MS), `get ${key}`);
  if ("error" in r) return pjrtError(v, G, r.error, `get ${key}: ${r.message}`);
  giveValue(v, G, r.value ?? "");
  return null;
});

/** kv_try_get_callback: NOT_FOUND at once for a missing key. */
const onTryGet = guarded(T, (v) => {
  const key = keyOf(v, T);
  const r = request({ op: "tryGet", key }, data.requestTimeoutMs, `tryGet ${key}`);
  if ("error" in r) return pjrtError(v, T, r.error, `tryGet ${key}: ${r.message}`);
  giveValue(v, T, r.value ?? "");
  return null;
});

/** kv_put_callback: ALREADY_EXISTS for a key already put (XLA's coordination service does the same). */
const onPut = guarded(P, (v) => {
  const key = keyOf(v, P);
  const value = bytesAt(word(v, P, "value"), word(v, P, "value_size")).toString("base64");
  const r = request({ op: "put", key, value, overwrite: false }, data.requestTimeoutMs, `put ${key}`);
  return "error" in r ? pjrtError(v, P, r.error, `put ${key}: ${r.message}`) : null;
});

function register(fn: (args: bigint) => bigint | null): bigint {
  return koffi.address(koffi.register(fn, koffi.pointer(KvCallback))) as bigint;
}

function report(message: KvWorkerReady): void {
  data.ready.postMessage(message);
  const s = new Int32Array(data.readySignal);
  Atomics.add(s, 0, 1);
  Atomics.notify(s, 0);
}

const connected = awaitReply(0, data.connectTimeoutMs, "a connection");
if ("error" in connected) report({ error: connected.message });
else if (data.role === "get") report({ role: "get", callbacks: { get: register(onGet) } });
else report({ role: "put", callbacks: { put: register(onPut), tryGet: register(onTryGet) } });
// Keeps this thread's event loop alive (koffi's relay does not): callbacks can come at any time until
// the client is destroyed and the worker terminated.
setInterval(() => {}, 1 << 30);
