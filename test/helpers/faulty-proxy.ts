// For tests: an HTTP proxy on 127.0.0.1 in front of a storage server (the GCS emulator) that fails
// requests the way a flaky network and an overloaded service do: answers 503 or 429 (or 403) itself,
// resets the connection before answering or halfway through the answer's body, or stalls (answers
// nothing, or half a body, until the client gives up), or (to test checksums) flips a byte of the body
// it passes on. Which request fails how is decided by a plan:
// a function of the request, or a seeded random schedule, so a run's faults are the same every time.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Fault = "503" | "429" | "403" | "reset" | "reset-mid-body" | "stall" | "stall-mid-body" | "corrupt-body";

export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  /** The request's body length in bytes. */
  bytes: number;
  /** The fault injected, if any. */
  fault?: Fault;
}

export type FaultPlan = (request: ProxiedRequest, index: number) => Fault | undefined;

export interface FaultyProxy {
  /** http://127.0.0.1:PORT, for STORAGE_EMULATOR_HOST. */
  host: string;
  /** Every request, in the order received, with the fault it met. */
  requests: ProxiedRequest[];
  /** The plan for the requests to come (tests change it between steps). */
  plan: FaultPlan;
  /** Faults injected so far, by kind. */
  faults(): Partial<Record<Fault, number>>;
  close(): Promise<void>;
}

/** A stalled request is held open at most this long, then closed (the server stops by itself). */
const STALL_MS = 30_000;

export async function startFaultyProxy(upstream: string, plan: FaultPlan = () => undefined): Promise<FaultyProxy> {
  const target = new URL(upstream);
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const proxy: Pick<FaultyProxy, "plan"> = { plan };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const entry: ProxiedRequest = { method: req.method!, url: req.url!, headers: req.headers, bytes: body.length };
      const fault = proxy.plan(entry, requests.length);
      if (fault) entry.fault = fault;
      requests.push(entry);
      if (fault === "503" || fault === "429" || fault === "403") return answerError(res, Number(fault));
      if (fault === "reset") return void req.socket.destroy();
      if (fault === "stall") return stall(res);
      if (fault === "corrupt-body" && body.length > 0) body[body.length >> 1] ^= 0xff;
      forward(target, req, body, res, fault);
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    host: `http://127.0.0.1:${port}`,
    requests,
    faults() {
      const out: Partial<Record<Fault, number>> = {};
      for (const r of requests) if (r.fault) out[r.fault] = (out[r.fault] ?? 0) + 1;
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  });
}

/**
 * A plan that fails each request with probability `rate`, the kind drawn from `kinds`, from a seeded
 * generator (mulberry32): the same seed fails the same requests of the same run.
 */
export function seededFaults(seed: number, rate: number, kinds: readonly Fault[]): FaultPlan {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => {
    const fail = random() < rate;
    const kind = kinds[Math.floor(random() * kinds.length)]!;
    return fail ? kind : undefined;
  };
}

function answerError(res: ServerResponse, status: number): void {
  const body = JSON.stringify({ error: { code: status, message: `injected ${status}` } });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function stall(res: ServerResponse): void {
  const timer = setTimeout(() => res.socket?.destroy(), STALL_MS);
  timer.unref();
  res.socket?.once("close", () => clearTimeout(timer));
}

/** Sends the request on to the server; a mid-body fault sends the answer's head and half its body, then resets or stalls. */
function forward(target: URL, req: IncomingMessage, body: Buffer, res: ServerResponse, fault: Fault | undefined): void {
  const upstream = httpRequest(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      const parts: Buffer[] = [];
      answer.on("data", (c: Buffer) => parts.push(c));
      answer.on("end", () => {
        const data = Buffer.concat(parts);
        const headers = { ...answer.headers, "content-length": String(data.length) };
        delete headers["transfer-encoding"];
        res.writeHead(answer.statusCode!, headers);
        if (fault !== "reset-mid-body" && fault !== "stall-mid-body") return void res.end(data);
        res.write(data.subarray(0, data.length >> 1), () => {
          if (fault === "reset-mid-body") res.socket?.destroy();
          else stall(res);
        });
      });
    },
  );
  upstream.on("error", () => req.socket.destroy());
  upstream.end(body);
}
