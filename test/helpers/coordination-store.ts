// A small coordination store that speaks the launcher's wire protocol exactly
// (src/exec/xla/distributed/store-wire.ts): put / get with timeout / tryGet / barrier / delete / abort,
// one request at a time per connection. Tests of the PJRT key-value callbacks talk to it; it records
// every request it receives, per connection, so that tests can hold the traffic to what they expect.
// Listens on 127.0.0.1 only.
import { createServer, type Socket } from "node:net";
import { encodeMessage, MessageReader, type StoreReply, type StoreRequest } from "../../src/exec/xla/distributed/store-wire.js";

export interface CoordinationStore {
  readonly port: number;
  /** Every request received, with the connection it came on (numbered from 0 in accept order). */
  readonly log: { connection: number; request: StoreRequest }[];
  close(): Promise<void>;
}

export function serveCoordinationStore(port = 0): Promise<CoordinationStore> {
  const values = new Map<string, string>();
  const waiters = new Map<string, Set<() => void>>(); // gets blocked on a key
  const barriers = new Map<string, { ranks: Set<number>; wake: Set<() => void> }>();
  let aborted: string | undefined;
  const onAbort = new Set<() => void>();
  const log: CoordinationStore["log"] = [];
  const sockets = new Set<Socket>();
  let connections = 0;

  const wakeKey = (key: string) => {
    for (const w of waiters.get(key) ?? []) w();
    waiters.delete(key);
  };

  /** Resolves when `ready()` holds, `ms` pass (→ false) or the store is aborted. */
  const waitFor = (register: (wake: () => void) => () => void, ms: number) =>
    new Promise<boolean>((resolve) => {
      const done = (v: boolean) => {
        clearTimeout(timer);
        unregister();
        onAbort.delete(abortWake);
        resolve(v);
      };
      const abortWake = () => done(true);
      const unregister = register(() => done(true));
      onAbort.add(abortWake);
      const timer = setTimeout(() => done(false), Math.min(ms, 0x7fffffff));
    });

  async function answer(r: StoreRequest): Promise<StoreReply> {
    const abortedReply = (): StoreReply => ({ error: "ABORTED", message: aborted! });
    if (aborted) return abortedReply();
    switch (r.op) {
      case "put":
        if (values.has(r.key) && !r.overwrite) return { error: "ALREADY_EXISTS", message: `key ${r.key} was already put` };
        values.set(r.key, r.value);
        wakeKey(r.key);
        return { ok: true };
      case "tryGet":
        return values.has(r.key) ? { ok: true, value: values.get(r.key)! } : { error: "NOT_FOUND", message: `no key ${r.key}` };
      case "get": {
        if (!values.has(r.key))
          await waitFor((wake) => {
            const set = waiters.get(r.key) ?? new Set();
            waiters.set(r.key, set.add(wake));
            return () => set.delete(wake);
          }, r.timeoutMs);
        if (aborted) return abortedReply();
        return values.has(r.key)
          ? { ok: true, value: values.get(r.key)! }
          : { error: "DEADLINE_EXCEEDED", message: `key ${r.key} did not appear within ${r.timeoutMs} ms` };
      }
      case "barrier": {
        const b = barriers.get(r.name) ?? { ranks: new Set<number>(), wake: new Set<() => void>() };
        barriers.set(r.name, b);
        b.ranks.add(r.rank);
        if (b.ranks.size >= r.count) for (const w of b.wake) w();
        else
          await waitFor((wake) => {
            b.wake.add(wake);
            return () => b.wake.delete(wake);
          }, r.timeoutMs);
        if (aborted) return abortedReply();
        if (b.ranks.size >= r.count) return { ok: true };
        const missing = Array.from({ length: r.count }, (_, i) => i).filter((i) => !b.ranks.has(i));
        return { error: "DEADLINE_EXCEEDED", message: `barrier ${r.name}: ranks ${missing.join(", ")} did not arrive` };
      }
      case "delete":
        values.delete(r.key);
        return { ok: true };
      case "abort":
        aborted = `rank ${r.rank} failed: ${r.reason}`;
        for (const w of onAbort) w();
        return { ok: true };
    }
  }

  const server = createServer((socket) => {
    const connection = connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let queue = Promise.resolve(); // one request at a time per connection, replies in order
    const reader = new MessageReader((m) => {
      const request = m as StoreRequest;
      log.push({ connection, request });
      queue = queue.then(async () => {
        if (!socket.destroyed) socket.write(encodeMessage(await answer(request)));
      });
    });
    socket.on("data", (chunk: Buffer) => reader.push(chunk));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      resolve({
        port: typeof address === "object" && address ? address.port : port,
        log,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
