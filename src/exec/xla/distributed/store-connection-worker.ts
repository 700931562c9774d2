// A worker thread that holds the TCP connections to the coordination store for the key-value
// callbacks. Each lane (one per callback worker) is a MessagePort, a connection and a signal word:
// requests come in on the port with an id; each reply goes back on the port with that id, then the
// signal word is bumped and notified, which wakes the callback worker blocked in Atomics.wait.
// Its event loop never blocks, so replies flow while the JS main thread sits in PJRT_Client_Create.
import { connect, type Socket } from "node:net";
import { workerData, type MessagePort } from "node:worker_threads";
import { encodeMessage, FrameReader, type StoreClientErrorCode, type StoreReply, type StoreRequest } from "../../../io/store-wire.js";

export interface StoreLane {
  readonly port: MessagePort;
  /** An Int32Array's buffer of one word, bumped after every reply. */
  readonly signal: SharedArrayBuffer;
}

export interface StoreConnectionData {
  readonly host: string;
  readonly port: number;
  readonly connectTimeoutMs: number;
  readonly lanes: readonly StoreLane[];
}

/** A store's reply, or why there is none: UNAVAILABLE (the connection failed), DEADLINE_EXCEEDED (no answer in time). */
export type LaneOutcome = StoreReply | { readonly error: StoreClientErrorCode; readonly message: string };

/** What a lane's port carries back: the reply to request `id` (id 0: the connection's own outcome). */
export interface LaneReply {
  readonly id: number;
  readonly reply: LaneOutcome;
}

function openLane(data: StoreConnectionData, lane: StoreLane): void {
  const signal = new Int32Array(lane.signal);
  const where = `the coordination store at ${data.host}:${data.port}`;
  const answer = (id: number, reply: LaneOutcome) => {
    lane.port.postMessage({ id, reply } satisfies LaneReply);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  const waiting: number[] = []; // ids of requests sent, in order (replies come in order)
  let broken: string | undefined;
  const fail = (why: string) => {
    broken ??= why;
    for (const id of waiting.splice(0)) answer(id, { error: "UNAVAILABLE", message: broken });
  };
  const socket: Socket = connect({ host: data.host, port: data.port });
  socket.setNoDelay(true);
  const timer = setTimeout(() => {
    fail(`${where} did not accept a connection within ${data.connectTimeoutMs} ms`);
    answer(0, { error: "UNAVAILABLE", message: broken! });
    socket.destroy();
  }, data.connectTimeoutMs);
  let connected = false;
  socket.once("connect", () => {
    connected = true;
    clearTimeout(timer);
    answer(0, { ok: true });
  });
  const reader = new FrameReader();
  socket.on("data", (chunk: Buffer) => {
    try {
      for (const text of reader.push(chunk)) {
        const reply = JSON.parse(text) as StoreReply;
        const id = waiting.shift();
        if (id !== undefined) answer(id, reply);
      }
    } catch (e) {
      fail(`${where} sent an unreadable message: ${(e as Error).message}`);
      socket.destroy();
    }
  });
  socket.on("error", (e) => {
    if (connected) return fail(`the connection to ${where} failed: ${e.message}`);
    clearTimeout(timer);
    fail(`cannot connect to ${where}: ${e.message}`);
    answer(0, { error: "UNAVAILABLE", message: broken! });
  });
  socket.on("close", () => fail(`${where} closed the connection`));
  lane.port.on("message", ({ id, request }: { id: number; request: StoreRequest }) => {
    if (broken) return answer(id, { error: "UNAVAILABLE", message: broken });
    waiting.push(id);
    socket.write(encodeMessage(request));
  });
}

const data = workerData as StoreConnectionData;
for (const lane of data.lanes) openLane(data, lane);
