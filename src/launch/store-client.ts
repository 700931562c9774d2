// The coordination store's client (async). Each request takes a connection of its own from a small pool,
// so a get that waits for a key never holds up a put from the same process; idle connections do not
// keep the process alive.
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  encodeMessage,
  FrameError,
  FrameReader,
  MAX_TIMEOUT_MS,
  type StoreClientErrorCode,
  type StoreReply,
  type StoreRequest,
} from "../io/store-wire.js";

/** A store request that failed: `code` is the reply's status, or UNAVAILABLE when the store could not be reached. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreClientErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "StoreError";
  }
}

/** Where a StoreClient connects, and how long it keeps trying at first. */
export interface StoreClientOptions {
  host: string;
  port: number;
  /** How long to keep trying to reach the store at first (it may not be up yet); default 60 000 ms. */
  connectTimeoutMs?: number;
}

/** One TCP connection: one request at a time. */
class Connection {
  private readonly reader = new FrameReader();
  private waiting: { resolve(r: StoreReply): void; reject(e: Error): void } | undefined;
  closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly where: string,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (chunk) => {
      let messages: string[];
      try {
        messages = this.reader.push(chunk);
      } catch (e) {
        if (!(e instanceof FrameError)) throw e;
        return this.fail(new StoreError("UNAVAILABLE", `the coordination store at ${where} sent an unreadable reply: ${e.message}`));
      }
      for (const text of messages) {
        const w = this.waiting;
        this.waiting = undefined;
        this.socket.unref();
        if (!w) return this.fail(new StoreError("UNAVAILABLE", `the coordination store at ${where} replied to no request`));
        try {
          w.resolve(JSON.parse(text) as StoreReply);
        } catch {
          w.reject(new StoreError("UNAVAILABLE", `the coordination store at ${where} sent a reply that is not JSON`));
        }
      }
    });
    socket.on("error", (e) => this.fail(new StoreError("UNAVAILABLE", `the coordination store at ${where}: ${e.message}`)));
    socket.on("close", () =>
      this.fail(new StoreError("UNAVAILABLE", `the coordination store at ${where} closed the connection (its launcher stopped?)`)),
    );
  }

  request(message: StoreRequest): Promise<StoreReply> {
    if (this.closed)
      return Promise.reject(new StoreError("UNAVAILABLE", `the connection to the coordination store at ${this.where} is closed`));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.ref();
      this.socket.write(encodeMessage(message));
    });
  }

  close(): void {
    this.closed = true;
    this.socket.destroy();
  }

  private fail(e: Error): void {
    this.closed = true;
    this.socket.destroy();
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(e);
  }
}

function openSocket(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error("no answer"), { code: "ETIMEDOUT" }));
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.removeAllListeners("error");
      resolve(socket);
    });
    socket.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/** A client of the run's coordination store: put, get with a timeout, tryGet, delete, barriers, abort. */
export class StoreClient {
  private readonly idle: Connection[] = [];
  private readonly open = new Set<Connection>();
  private closed = false;
  readonly where: string;

  private constructor(
    readonly host: string,
    readonly port: number,
  ) {
    this.where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  }

  /**
   * Connects, trying again until `connectTimeoutMs` passes (the store may start after this process);
   * then fails with one line naming host:port and what to check.
   */
  static async connect(options: StoreClientOptions): Promise<StoreClient> {
    const client = new StoreClient(options.host, options.port);
    client.idle.push(await client.dial(options.connectTimeoutMs ?? 60_000));
    return client;
  }

  private async dial(timeoutMs: number): Promise<Connection> {
    const deadline = Date.now() + timeoutMs;
    let delay = 100;
    for (;;) {
      try {
        const socket = await openSocket(this.host, this.port, Math.max(100, Math.min(5000, deadline - Date.now())));
        socket.unref();
        const c = new Connection(socket, this.where);
        this.open.add(c);
        return c;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
        if (Date.now() >= deadline)
          throw new StoreError(
            "UNAVAILABLE",
            `cannot reach the coordination store at ${this.where} within ${(timeoutMs / 1000).toFixed(0)} s (${code}): check that ` +
              `the process serving it (\`kiln launch\` on node 0) is running, that ${this.where} is its address as this host ` +
              `sees it, and that no firewall blocks port ${this.port}`,
          );
        await sleep(Math.min(delay, deadline - Date.now()));
        delay = Math.min(1000, delay * 2);
      }
    }
  }

  private async call(message: StoreRequest): Promise<StoreReply> {
    if (this.closed) throw new StoreError("UNAVAILABLE", `the store client for ${this.where} is closed`);
    let c = this.idle.pop();
    while (c?.closed) c = this.idle.pop();
    // A fresh connection after the first is to a store that was up: a short retry covers a busy listener.
    c ??= await this.dial(2000);
    try {
      const reply = await c.request(message);
      if (!c.closed && !this.closed && this.idle.length < 4) this.idle.push(c);
      else this.drop(c);
      return reply;
    } catch (e) {
      this.drop(c);
      throw e;
    }
  }

  private drop(c: Connection): void {
    c.close();
    this.open.delete(c);
  }

  private static check(reply: StoreReply): { ok: true; value?: string } {
    if ("error" in reply) throw new StoreError(reply.error, reply.message);
    return reply;
  }

  /** Sets `key`; a second put of a key is ALREADY_EXISTS unless `overwrite`. */
  async put(key: string, value: Uint8Array | string, options: { overwrite?: boolean } = {}): Promise<void> {
    const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    StoreClient.check(await this.call({ op: "put", key, value: bytes.toString("base64"), overwrite: options.overwrite ?? false }));
  }

  /**
   * Waits until `key` is set, up to `timeoutMs` (then DEADLINE_EXCEEDED). `from`, the rank that sets the
   * key, turns a timeout into an abort naming that rank (it is hung or too slow), so that every process
   * stops with the same cause.
   */
  async get(key: string, options: { timeoutMs: number; from?: number }): Promise<Buffer> {
    try {
      const reply = StoreClient.check(await this.call({ op: "get", key, timeoutMs: clampTimeout(options.timeoutMs) }));
      return Buffer.from(reply.value ?? "", "base64");
    } catch (e) {
      if (options.from !== undefined && e instanceof StoreError && e.code === "DEADLINE_EXCEEDED") {
        const cause = await this.abort(options.from, `did not set ${JSON.stringify(key)} within ${seconds(options.timeoutMs)} (hung?)`);
        throw new StoreError("ABORTED", cause);
      }
      throw e;
    }
  }

  /** The value of `key`, or undefined when it is not set (no waiting). */
  async tryGet(key: string): Promise<Buffer | undefined> {
    const reply = await this.call({ op: "tryGet", key });
    if ("error" in reply && reply.error === "NOT_FOUND") return undefined;
    return Buffer.from(StoreClient.check(reply).value ?? "", "base64");
  }

  async delete(key: string): Promise<void> {
    StoreClient.check(await this.call({ op: "delete", key }));
  }

  /**
   * Waits until `count` ranks (0 … count-1) reached barrier `name`. When it times out, the store is
   * aborted naming the first rank that did not arrive (unless `abortOnTimeout` is false), so every
   * process stops with that rank named rather than with its own timeout.
   */
  async barrier(name: string, options: { rank: number; count: number; timeoutMs: number; abortOnTimeout?: boolean }): Promise<void> {
    const { rank, count, timeoutMs } = options;
    const reply = await this.call({ op: "barrier", name, count, rank, timeoutMs: clampTimeout(timeoutMs) });
    if ("error" in reply && reply.error === "DEADLINE_EXCEEDED" && options.abortOnTimeout !== false) {
      const missing = /ranks ([\d, ]+) did not arrive/.exec(reply.message)?.[1]?.split(", ").map(Number) ?? [];
      if (missing.length) {
        const others = missing.length > 1 ? ` (nor did rank${missing.length > 2 ? "s" : ""} ${missing.slice(1).join(", ")})` : "";
        const cause = await this.abort(
          missing[0]!,
          `did not arrive at barrier ${JSON.stringify(name)} within ${seconds(timeoutMs)}${others}`,
        );
        throw new StoreError("ABORTED", cause);
      }
    }
    StoreClient.check(reply);
  }

  /**
   * Marks the run failed by `rank` for `reason`. Returns the run's failure as every process sees it:
   * "rank R failed: …", which is an earlier abort's when there was one (the first failure wins).
   */
  async abort(rank: number, reason: string): Promise<string> {
    const reply = await this.call({ op: "abort", rank, reason });
    if ("error" in reply && reply.error === "ABORTED") return reply.message;
    StoreClient.check(reply);
    return `rank ${rank} failed: ${reason}`;
  }

  /** Closes every connection (pending requests fail with UNAVAILABLE). */
  close(): void {
    this.closed = true;
    for (const c of this.open) c.close();
    this.open.clear();
    this.idle.length = 0;
  }
}

function clampTimeout(ms: number): number {
  if (!(ms >= 0)) throw new StoreError("INVALID_ARGUMENT", `timeoutMs must be a number ≥ 0, got ${ms}`);
  return Math.min(Math.round(ms), MAX_TIMEOUT_MS);
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${+(ms / 1000).toFixed(1)} s`;
}
