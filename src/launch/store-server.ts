// The coordination store: a small TCP key-value service that the processes of one run share, as torch's
// TCPStore and XLA's coordination service are. put / get with a timeout / tryGet / delete, barriers that
// name the ranks that did not arrive, and abort, which is how one rank's failure reaches every other:
// every pending and later request is answered ABORTED with the failed rank and its cause.
// The protocol (src/io/store-wire.ts) is the one every Kiln process speaks, PJRT's key-value callbacks included.
import { createServer, type Server, type Socket } from "node:net";
import {
  encodeMessage,
  FrameError,
  FrameReader,
  MAX_TIMEOUT_MS,
  type StoreErrorCode,
  type StoreReply,
  type StoreRequest,
} from "../io/store-wire.js";

/** Options of StoreServer: the address and port to listen on, and a request hook. */
export interface StoreServerOptions {
  /** Address to listen on (default 127.0.0.1; another host's processes need an address they can reach). */
  host?: string;
  /** Port to listen on (default 0: a free port, read back from `port`). */
  port?: number;
  /**
   * Called with every well-formed request as it is taken up, before it is answered, with the number of
   * the connection it came on (from 0, in accept order): a record of the traffic, for tests and tracing.
   */
  onRequest?: (request: StoreRequest, connection: number) => void;
}

/** A request that waits (a get for a missing key, a barrier not yet full): answered once, then forgotten. */
interface Waiter {
  reply(r: StoreReply): void;
  /** Forgets the waiter without answering (its connection closed). */
  drop(): void;
}

interface Barrier {
  count: number;
  arrived: Map<number, Waiter>;
  /** Set once the barrier timed out: later arrivals get the same answer. */
  failed?: string;
}

const error = (code: StoreErrorCode, message: string): StoreReply => ({ error: code, message });

/** A request's fields, checked; the message names what was wrong so a client in any language can be fixed. */
function parseRequest(text: string): StoreRequest | string {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return `not JSON: ${JSON.stringify(text.slice(0, 80))}`;
  }
  if (typeof m !== "object" || m === null || Array.isArray(m)) return "a request must be a JSON object with an op";
  const r = m as Record<string, unknown>;
  const str = (k: string) => (typeof r[k] === "string" ? undefined : `${String(r.op)}: "${k}" must be a string`);
  const int = (k: string, min: number) =>
    Number.isInteger(r[k]) && (r[k] as number) >= min ? undefined : `${String(r.op)}: "${k}" must be an integer ≥ ${min}`;
  const problems: (string | undefined)[] = [];
  switch (r.op) {
    case "put":
      problems.push(str("key"), str("value"));
      if (r.overwrite !== undefined && typeof r.overwrite !== "boolean") problems.push('put: "overwrite" must be true or false');
      break;
    case "get":
      problems.push(str("key"), int("timeoutMs", 0));
      break;
    case "tryGet":
    case "delete":
      problems.push(str("key"));
      break;
    case "barrier":
      problems.push(str("name"), int("count", 1), int("timeoutMs", 0), int("rank", 0));
      if (!problems.some(Boolean) && (r.rank as number) >= (r.count as number))
        problems.push(`barrier ${String(r.name)}: rank ${String(r.rank)} is not below the count ${String(r.count)}`);
      break;
    case "abort":
      problems.push(int("rank", 0), str("reason"));
      break;
    default:
      return `unknown op ${JSON.stringify(r.op)} (put, get, tryGet, barrier, delete, abort)`;
  }
  return problems.find(Boolean) ?? (r as unknown as StoreRequest);
}

/** The run's coordination store: a small TCP key-value service with barriers and abort that a run's processes share. */
export class StoreServer {
  private readonly values = new Map<string, string>();
  private readonly keyWaiters = new Map<string, Set<Waiter>>();
  private readonly barriers = new Map<string, Barrier>();
  private readonly sockets = new Set<Socket>();
  private abortState: { rank: number; reason: string } | undefined;
  private readonly abortListeners: ((rank: number, reason: string) => void)[] = [];

  private connections = 0;

  private constructor(
    private readonly server: Server,
    readonly host: string,
    readonly port: number,
    private readonly onRequest: StoreServerOptions["onRequest"],
  ) {}

  /** Starts serving; refuses a port in use with a message that names host:port. */
  static start(options: StoreServerOptions = {}): Promise<StoreServer> {
    const host = options.host ?? "127.0.0.1";
    const server = createServer();
    return new Promise((resolve, reject) => {
      server.once("error", (e: NodeJS.ErrnoException) => {
        const where = `${host}:${options.port ?? 0}`;
        if (e.code === "EADDRINUSE")
          reject(
            new Error(`cannot serve the coordination store on ${where}: the port is in use (another run's store, or another program)`),
          );
        else if (e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND")
          reject(new Error(`cannot serve the coordination store on ${where}: ${host} is not an address of this host (${e.code})`));
        else reject(new Error(`cannot serve the coordination store on ${where}: ${e.message}`));
      });
      server.listen({ host, port: options.port ?? 0, exclusive: true }, () => {
        const store = new StoreServer(server, host, (server.address() as { port: number }).port, options.onRequest);
        server.on("connection", (socket) => store.serve(socket));
        resolve(store);
      });
    });
  }

  /** The first abort (rank and cause), once a rank has failed. */
  get aborted(): { rank: number; reason: string } | undefined {
    return this.abortState;
  }

  /** Called once, with the first abort. */
  onAbort(listener: (rank: number, reason: string) => void): void {
    this.abortListeners.push(listener);
  }

  /** Stops listening and ends every connection (replies already written are flushed first). */
  close(): Promise<void> {
    for (const s of this.sockets) s.end();
    for (const waiters of this.keyWaiters.values()) for (const w of waiters) w.drop();
    for (const b of this.barriers.values()) for (const w of b.arrived.values()) w.drop();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private serve(socket: Socket): void {
    const connection = this.connections++;
    this.sockets.add(socket);
    socket.setNoDelay(true);
    const reader = new FrameReader();
    const queue: string[] = [];
    let busy: Waiter | undefined | "running";
    let closed = false;
    const send = (reply: StoreReply) => {
      if (!closed) socket.write(encodeMessage(reply));
    };
    // One request at a time per connection, replies in order: the next message waits for this one's reply.
    const next = () => {
      if (busy !== undefined || closed) return;
      const text = queue.shift();
      if (text === undefined) return;
      busy = "running";
      this.handle(text, connection, (waiter) => (busy = waiter)).then((reply) => {
        busy = undefined;
        send(reply);
        next();
      });
    };
    socket.on("data", (chunk) => {
      try {
        queue.push(...reader.push(chunk));
      } catch (e) {
        if (!(e instanceof FrameError)) throw e;
        send(error("INVALID_ARGUMENT", e.message));
        socket.end();
        closed = true;
        return;
      }
      next();
    });
    socket.on("error", () => {}); // a peer that vanished: "close" follows
    socket.on("close", () => {
      closed = true;
      this.sockets.delete(socket);
      if (typeof busy === "object") busy.drop();
    });
  }

  /** Answers one request; a waiting one registers its waiter through `waiting` (dropped if the connection closes). */
  private handle(text: string, connection: number, waiting: (w: Waiter) => void): Promise<StoreReply> {
    const r = parseRequest(text);
    if (typeof r === "string") return Promise.resolve(error("INVALID_ARGUMENT", r));
    this.onRequest?.(r, connection);
    if (this.abortState) return Promise.resolve(this.abortedReply());
    switch (r.op) {
      case "put": {
        if (this.values.has(r.key) && !r.overwrite)
          return Promise.resolve(error("ALREADY_EXISTS", `key ${JSON.stringify(r.key)} is already set (put with overwrite to replace it)`));
        this.values.set(r.key, r.value);
        const waiters = this.keyWaiters.get(r.key);
        this.keyWaiters.delete(r.key);
        for (const w of waiters ?? []) w.reply({ ok: true, value: r.value });
        return Promise.resolve({ ok: true });
      }
      case "tryGet": {
        const value = this.values.get(r.key);
        return Promise.resolve(value === undefined ? error("NOT_FOUND", `key ${JSON.stringify(r.key)} is not set`) : { ok: true, value });
      }
      case "delete":
        this.values.delete(r.key);
        return Promise.resolve({ ok: true });
      case "abort":
        this.abort(r.rank, r.reason);
        return Promise.resolve({ ok: true });
      case "get": {
        const value = this.values.get(r.key);
        if (value !== undefined) return Promise.resolve({ ok: true, value });
        return this.wait(r.timeoutMs, waiting, (w) => {
          let set = this.keyWaiters.get(r.key);
          if (!set) this.keyWaiters.set(r.key, (set = new Set()));
          set.add(w);
          return {
            forget: () => set.delete(w),
            expired: () => error("DEADLINE_EXCEEDED", `key ${JSON.stringify(r.key)} was not set within ${r.timeoutMs} ms`),
          };
        });
      }
      case "barrier":
        return this.barrier(r, waiting);
    }
  }

  private barrier(r: Extract<StoreRequest, { op: "barrier" }>, waiting: (w: Waiter) => void): Promise<StoreReply> {
    let b = this.barriers.get(r.name);
    if (!b) this.barriers.set(r.name, (b = { count: r.count, arrived: new Map() }));
    const barrier = b;
    if (barrier.failed) return Promise.resolve(error("DEADLINE_EXCEEDED", barrier.failed));
    if (barrier.count !== r.count)
      return Promise.resolve(
        error("INVALID_ARGUMENT", `barrier ${r.name}: rank ${r.rank} waits for ${r.count} ranks, others for ${barrier.count}`),
      );
    if (barrier.arrived.has(r.rank))
      return Promise.resolve(error("INVALID_ARGUMENT", `barrier ${r.name}: rank ${r.rank} arrived twice (two processes with one rank?)`));
    return this.wait(r.timeoutMs, waiting, (w) => {
      barrier.arrived.set(r.rank, w);
      if (barrier.arrived.size === barrier.count) {
        // Everyone is here: release them all and free the name for the next use.
        this.barriers.delete(r.name);
        queueMicrotask(() => {
          for (const other of Array.from(barrier.arrived.values())) other.reply({ ok: true }); // replying removes it
        });
      }
      return {
        forget: () => barrier.arrived.delete(r.rank),
        expired: () => {
          const missing = Array.from({ length: barrier.count }, (_, i) => i).filter((i) => !barrier.arrived.has(i));
          barrier.failed = `barrier ${r.name}: ranks ${missing.join(", ")} did not arrive within ${r.timeoutMs} ms`;
          const failure = error("DEADLINE_EXCEEDED", barrier.failed);
          // The barrier failed for everyone who is waiting at it, not only for the first to time out.
          queueMicrotask(() => {
            for (const other of Array.from(barrier.arrived.values())) other.reply(failure);
          });
          return failure;
        },
      };
    });
  }

  /**
   * A request that waits: `register` files the waiter and says how to forget it and what a timeout answers.
   * The waiter is answered once: by a put or a full barrier, by its timeout, or by an abort.
   */
  private wait(
    timeoutMs: number,
    waiting: (w: Waiter) => void,
    register: (w: Waiter) => { forget(): void; expired(): StoreReply },
  ): Promise<StoreReply> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let answered = false;
      let filed: { forget(): void; expired(): StoreReply } | undefined;
      const finish = (reply: StoreReply | undefined) => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        this.pending.delete(waiter);
        filed?.forget();
        if (reply) resolve(reply);
      };
      const waiter: Waiter = { reply: (r) => finish(r), drop: () => finish(undefined) };
      this.pending.add(waiter);
      waiting(waiter);
      filed = register(waiter);
      if (answered) return;
      timer = setTimeout(
        () => {
          const reply = filed!.expired();
          finish(reply);
        },
        Math.min(timeoutMs, MAX_TIMEOUT_MS),
      );
    });
  }

  private readonly pending = new Set<Waiter>();

  private abortedReply(): StoreReply {
    const a = this.abortState!;
    return error("ABORTED", `rank ${a.rank} failed: ${a.reason}`);
  }

  /** Marks the run failed: every pending request is answered ABORTED now, every later one at once. */
  abort(rank: number, reason: string): void {
    if (this.abortState) return;
    this.abortState = { rank, reason };
    const reply = this.abortedReply();
    for (const w of Array.from(this.pending)) w.reply(reply); // replying removes it
    for (const listener of this.abortListeners) listener(rank, reason);
  }
}
