// For tests: a small in-process server speaking the part of the Google Cloud Storage JSON API that
// @google-cloud/storage uses for Kiln's storage adapter (list, metadata, ranged media download,
// multipart upload, delete). Objects live in memory. Point the library at it with
// STORAGE_EMULATOR_HOST. Listing returns two objects per page, so pagination is exercised.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import { crc32c } from "../../src/data/tfrecord/crc32c.js";

export interface FakeGcs {
  /** http://127.0.0.1:PORT, for STORAGE_EMULATOR_HOST. */
  host: string;
  /** Objects by "bucket/name". */
  objects: Map<string, Buffer>;
  /** Every request, as "METHOD path". */
  requests: string[];
  /**
   * Called before each request is handled: it may wait (a slow network) and may answer with an error
   * instead (a failed upload, a missing bucket, a refused permission). Tests set and clear it.
   */
  intercept: ((request: { method: string; url: string }) => Promise<FakeGcsFailure | undefined> | FakeGcsFailure | undefined) | undefined;
  close(): Promise<void>;
}

export interface FakeGcsFailure {
  status: number;
  message: string;
}

const PAGE_SIZE = 2;

export async function startFakeGcs(): Promise<FakeGcs> {
  const objects = new Map<string, Buffer>();
  const requests: string[] = [];
  const fake: Pick<FakeGcs, "intercept"> = { intercept: undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      requests.push(`${req.method} ${req.url}`);
      try {
        const failure = await fake.intercept?.({ method: req.method!, url: req.url! });
        if (failure) return json(res, failure.status, { error: { code: failure.status, message: failure.message } });
        handle(objects, req, Buffer.concat(chunks), res);
      } catch (e) {
        json(res, 500, { error: { code: 500, message: (e as Error).message } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    host: `http://127.0.0.1:${port}`,
    objects,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the client keeps connections alive for reuse
      }),
  });
}

function handle(objects: Map<string, Buffer>, req: IncomingMessage, body: Buffer, res: ServerResponse): void {
  const url = new URL(req.url!, "http://x");
  const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
  if (req.method === "POST" && upload && url.searchParams.get("uploadType") === "multipart") {
    const name = url.searchParams.get("name")!;
    const data = multipartMedia(req.headers["content-type"]!, body);
    objects.set(`${upload[1]}/${name}`, data);
    return json(res, 200, metadata(upload[1]!, name, data));
  }
  const list = /^\/b\/([^/]+)\/o$/.exec(url.pathname);
  if (req.method === "GET" && list) {
    const prefix = url.searchParams.get("prefix") ?? "";
    const names = [...objects.keys()]
      .filter((k) => k.startsWith(`${list[1]}/${prefix}`))
      .map((k) => k.slice(list[1]!.length + 1))
      .sort();
    const start = Number(url.searchParams.get("pageToken") ?? 0);
    const page = names.slice(start, start + PAGE_SIZE);
    const next = start + PAGE_SIZE < names.length ? { nextPageToken: String(start + PAGE_SIZE) } : {};
    return json(res, 200, {
      kind: "storage#objects",
      items: page.map((n) => metadata(list[1]!, n, objects.get(`${list[1]}/${n}`)!)),
      ...next,
    });
  }
  const object = /^\/b\/([^/]+)\/o\/(.+)$/.exec(url.pathname);
  if (object) {
    const bucket = object[1]!;
    const name = decodeURIComponent(object[2]!);
    const data = objects.get(`${bucket}/${name}`);
    if (!data) return json(res, 404, { error: { code: 404, message: `No such object: ${bucket}/${name}` } });
    if (req.method === "DELETE") {
      objects.delete(`${bucket}/${name}`);
      res.writeHead(204).end();
      return;
    }
    if (url.searchParams.get("alt") === "media") {
      const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
      if (!range) {
        res.writeHead(200, {
          "content-type": "application/octet-stream",
          "content-length": data.length,
          "x-goog-hash": `crc32c=${crc32cBase64(data)}`,
        });
        res.end(data);
        return;
      }
      const start = Number(range[1]);
      const end = range[2] ? Math.min(Number(range[2]), data.length - 1) : data.length - 1;
      res.writeHead(206, {
        "content-type": "application/octet-stream",
        "content-range": `bytes ${start}-${end}/${data.length}`,
        "content-length": end - start + 1,
      });
      res.end(data.subarray(start, end + 1));
      return;
    }
    return json(res, 200, metadata(bucket, name, data));
  }
  json(res, 404, { error: { code: 404, message: `not handled: ${req.method} ${req.url}` } });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function metadata(bucket: string, name: string, data: Buffer): Record<string, string> {
  return {
    kind: "storage#object",
    bucket,
    name,
    size: String(data.length),
    generation: "1",
    contentType: "application/octet-stream",
    crc32c: crc32cBase64(data),
    md5Hash: createHash("md5").update(data).digest("base64"),
  };
}

function crc32cBase64(data: Buffer): string {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(crc32c(data));
  return b.toString("base64");
}

/** The media part of a multipart/related upload body (the part after the JSON metadata). */
function multipartMedia(contentType: string, body: Buffer): Buffer {
  const boundary = `--${/boundary=([^;]+)/.exec(contentType)![1]}`;
  const parts: Buffer[] = [];
  let at = body.indexOf(boundary);
  while (at >= 0) {
    const next = body.indexOf(boundary, at + boundary.length);
    if (next < 0) break;
    const part = body.subarray(at + boundary.length + 2, next - 2); // skip CRLF after boundary, before next
    const headerEnd = part.indexOf("\r\n\r\n");
    parts.push(part.subarray(headerEnd + 4));
    at = next;
  }
  return Buffer.from(parts[1]!);
}
