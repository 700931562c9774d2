// Google Cloud Storage: paths are `gs://bucket/object`. Uses `@google-cloud/storage`, which talks to
// the emulator named by STORAGE_EMULATOR_HOST when that is set.
//
// Atomic writes: an object becomes visible only when its upload completes (GCS commits an object
// as a whole at the end of the upload request), so a writer that is aborted or killed mid-upload
// leaves nothing under the final name. No temporary objects are needed.
import type { Bucket, Storage as GcsClient } from "@google-cloud/storage";
import { writeAllAtomically, type AtomicWriter, type ReadRange, type Storage } from "./types.js";
import { globToRegExp, hasWildcard, literalPrefix } from "./glob.js";
import { gcsCall, quietGcsWarnings } from "./gcs-errors.js";
import { watchCuts } from "./cut-connections.js";
import { countResumed, gcsRetrySettings, stallError, withinTimeout, withRetries } from "./retry.js";
import { crc32c } from "../tfrecord/crc32c.js";

/** A listing request: a prefix, a page size and the page token. */
interface GetFilesOptions {
  prefix: string;
  autoPaginate: false;
  maxResults: number;
  pageToken?: string;
}

export interface GcsPath {
  bucket: string;
  object: string;
}

/** Splits `gs://bucket/object` into its parts; the object may be empty (the bucket root). */
export function parseGcsPath(path: string): GcsPath {
  const m = /^gs:\/\/([^/]+)\/?(.*)$/.exec(path);
  if (!m) throw new Error(`"${path}" is not a gs:// path; write it as gs://bucket/path/to/object`);
  return { bucket: m[1]!, object: m[2]! };
}

export class GcsStorage implements Storage {
  private client: Promise<GcsClient> | undefined;

  // The library is loaded and the client created on first use: loading it takes a good fraction of a
  // second, which local-only runs (and every worker thread) should not pay. The library's own retries
  // are off: withRetries (retry.ts) retries every request instead, counting each retry by its cause,
  // timing its backoff by KILN_GCS_* and retrying what the library cannot (a read that broke off
  // mid-stream goes on from its byte; an upload goes on from the byte the server has). Nothing is
  // judged retryable by the library either: a resumable upload would otherwise wrap a failed chunk's
  // error into a "Retry limit exceeded" message that keeps its status and code only as text.
  private async bucket(name: string): Promise<Bucket> {
    const retryOptions = { autoRetry: false, maxRetries: 0, retryableErrorFn: () => false };
    this.client ??= loadClient({ retryOptions, timeout: gcsRetrySettings().timeoutMs });
    return (await this.client).bucket(name);
  }

  /**
   * Checks that `path` (a gs:// directory or object) can be listed, so that missing credentials, no
   * network or a missing bucket are reported at once (they are lasting failures, never retried; a
   * passing 503 is). Returns whether any object lies under `path` as a directory.
   */
  async probe(path: string): Promise<boolean> {
    const { bucket, object } = parseGcsPath(path);
    const b = await this.bucket(bucket);
    const prefix = object === "" || object.endsWith("/") ? object : `${object}/`;
    const [files] = await gcsCall(
      path,
      () => withRetries(() => withinTimeout(`listing ${path}`, () => b.getFiles({ prefix, maxResults: 1, autoPaginate: false }))),
      true,
    );
    return files.length > 0;
  }

  async glob(pattern: string): Promise<string[]> {
    const { bucket, object } = parseGcsPath(pattern);
    if (!hasWildcard(object)) return (await this.isFile(pattern)) ? [pattern] : [];
    const re = globToRegExp(object);
    const b = await this.bucket(bucket);
    // Page by page, so that a retry asks again for one page (its token stays good), not for all.
    const names: string[] = [];
    let query: GetFilesOptions | undefined = { prefix: literalPrefix(object), autoPaginate: false, maxResults: 1000 };
    while (query) {
      const q: GetFilesOptions = query;
      const [files, next] = await gcsCall(pattern, () => withRetries(() => withinTimeout(`listing ${pattern}`, () => b.getFiles(q))), true);
      names.push(...files.map((f) => f.name));
      query = next?.pageToken ? { ...q, pageToken: next.pageToken } : undefined;
    }
    return names
      .filter((name) => re.test(name))
      .sort()
      .map((name) => `gs://${bucket}/${name}`);
  }

  async isFile(path: string): Promise<boolean> {
    const { bucket, object } = parseGcsPath(path);
    if (object === "" || object.endsWith("/")) return false;
    const b = await this.bucket(bucket);
    const [exists] = await gcsCall(path, () => withRetries(() => withinTimeout(`looking up ${path}`, () => b.file(object).exists())));
    return exists;
  }

  async size(path: string): Promise<number> {
    const { bucket, object } = parseGcsPath(path);
    const b = await this.bucket(bucket);
    const [meta] = await gcsCall(path, () => withRetries(() => withinTimeout(`looking up ${path}`, () => b.file(object).getMetadata())));
    return Number(meta.size);
  }

  /**
   * Streams the object. A try that fails for a passing reason (a reset, a 503, no bytes for
   * `timeoutMs`) is followed by a ranged request from the first byte not yet yielded, so nothing is
   * read twice and the consumer sees one unbroken stream.
   */
  async *read(path: string, range: ReadRange = {}): AsyncIterable<Uint8Array> {
    const { bucket, object } = parseGcsPath(path);
    const { start = 0, end } = range;
    if (end !== undefined && end <= start) return;
    const file = (await this.bucket(bucket)).file(object);
    const { timeoutMs } = gcsRetrySettings();
    let offset = start;
    let chunks: AsyncIterator<Uint8Array> | undefined;
    let stream: ReturnType<typeof file.createReadStream> | undefined;
    // A cut answer ends the stream it feeds at once (the library may leave it open: see cut-connections.ts).
    let onCut: (e: Error) => void = () => {};
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Opens the stream at `offset` (on a retry) and waits for its next chunk, abandoning it when
    // nothing arrives for timeoutMs. The clock runs only while waiting, never while the consumer works.
    const next = (tryNumber: number): Promise<IteratorResult<Uint8Array>> => {
      if (!chunks) {
        if (tryNumber > 1) countResumed("read");
        const ranged = offset > 0 || end !== undefined;
        // This stream's own: a late cut of an earlier stream's answer must not end a later one.
        const cut = (e: Error) => opened.destroy(e);
        const opened = watchCuts(cut, () =>
          file.createReadStream({
            // The library's end is inclusive. Whole-object checksums cannot validate a partial read.
            ...(ranged ? { start: offset, end: end === undefined ? undefined : end - 1, validation: false } : {}),
            decompress: false,
          }),
        );
        [stream, onCut] = [opened, cut];
        chunks = opened[Symbol.asyncIterator]();
      }
      const s = stream!;
      const reading = chunks;
      timer = setTimeout(() => s.destroy(stallError(`reading ${path}`, timeoutMs)), timeoutMs);
      return watchCuts(onCut, () => reading.next()).then(
        (r) => (clearTimeout(timer), r),
        (e: unknown) => {
          clearTimeout(timer);
          chunks = undefined;
          s.destroy();
          throw e;
        },
      );
    };
    try {
      for (let first = true; ; first = false) {
        const r = await gcsCall(path, () => withRetries(next, { continues: !first }));
        if (r.done) return;
        offset += r.value.length;
        yield r.value;
      }
    } finally {
      clearTimeout(timer);
      stream?.destroy();
    }
  }

  async readAll(path: string): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for await (const chunk of this.read(path)) parts.push(chunk);
    return Buffer.concat(parts);
  }

  /**
   * A writer that holds the object's bytes until commit, then uploads them: a stream cut off
   * mid-upload cannot be sent again unless its bytes are still at hand.
   */
  async createWriter(path: string): Promise<AtomicWriter> {
    parseGcsPath(path);
    return this.heldWriter(path, true);
  }

  async writeAtomic(path: string, data: Uint8Array): Promise<void> {
    await writeAllAtomically(this.heldWriter(path, false), data);
  }

  /** The writer of createWriter; `copy` keeps a copy of each chunk, for callers that reuse their buffers. */
  private heldWriter(path: string, copy: boolean): AtomicWriter {
    const parts: Uint8Array[] = [];
    let open = true;
    return {
      write: async (chunk) => {
        if (!open) throw new Error(`${path}: write after commit or abort`);
        parts.push(copy ? chunk.slice() : chunk);
      },
      commit: async () => {
        open = false;
        const data = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
        parts.length = 0;
        await this.upload(path, data);
      },
      abort: async () => {
        open = false;
        parts.length = 0;
      },
    };
  }

  /**
   * Uploads `data` whole, checked by CRC32C. Up to one chunk goes in one request, sent again on a
   * passing failure; more goes as a resumable upload in chunks, and a failed try asks the server how
   * many bytes it holds and sends the rest from there, in the same upload session.
   */
  private async upload(path: string, data: Uint8Array): Promise<void> {
    const { bucket, object } = parseGcsPath(path);
    const file = (await this.bucket(bucket)).file(object);
    const { chunkBytes, timeoutMs } = gcsRetrySettings();
    const contentType = "application/octet-stream";
    if (data.length <= chunkBytes) {
      await gcsCall(path, () =>
        withRetries(() =>
          sendStream(() => file.createWriteStream({ resumable: false, contentType, validation: "crc32c" }), data, path, timeoutMs),
        ),
      );
      return;
    }
    const client = await this.client!;
    await gcsCall(path, async () => {
      let uri: string | undefined;
      let offset = 0;
      await withRetries(async () => {
        if (uri !== undefined) {
          // A try after a failure: the server says how much of the session it holds. A session it no
          // longer knows (expired, or completed where the emulator forgets it) is started again in this
          // try: the retry is the failure's, counted by its cause.
          const held = await sessionOffset(client, uri, data.length);
          if (held === "gone") uri = undefined;
          else {
            if (held > 0) countResumed("upload");
            offset = held;
          }
        }
        if (uri === undefined) {
          [uri] = await withinTimeout(`starting the upload of ${path}`, () => file.createResumableUpload({ metadata: { contentType } }));
          offset = 0;
        }
        if (offset < data.length) {
          // Resumed parts cannot be checked by the library (it hashes only what it sends): the whole
          // object's CRC32C is checked below instead.
          const open = () => file.createWriteStream({ uri, offset, chunkSize: chunkBytes, contentType, validation: false });
          await sendStream(open, data.subarray(offset), path, timeoutMs);
        }
      });
      const [meta] = await withRetries(() => withinTimeout(`looking up ${path}`, () => file.getMetadata()));
      const expected = Buffer.alloc(4);
      expected.writeUInt32BE(crc32c(data));
      if (meta.crc32c !== expected.toString("base64")) {
        // Damaged on the way: the object must not stay under its name as if it were whole.
        await withRetries(() => withinTimeout(`deleting ${path}`, () => file.delete({ ignoreNotFound: true })));
        throw new Error(
          `the uploaded object's CRC32C (${meta.crc32c}) differs from the data's (${expected.toString("base64")}); ` +
            "it was deleted: write it again",
        );
      }
    });
  }

  async remove(path: string): Promise<void> {
    const { bucket, object } = parseGcsPath(path);
    const b = await this.bucket(bucket);
    await gcsCall(path, () => withRetries(() => withinTimeout(`deleting ${path}`, () => b.file(object).delete({ ignoreNotFound: true }))));
  }

  async staleTemporaries(): Promise<string[]> {
    return []; // uploads never leave partial objects behind
  }
}

/**
 * Writes `data` into the upload stream `open` makes and waits for the upload to finish, abandoning it
 * when the stream reports no progress for `timeoutMs` (a stalled server never answers, and uploads have
 * no timeout of their own) or when an answer to one of its requests is cut off.
 */
function sendStream(
  open: () => NodeJS.WritableStream & { destroy(e?: Error): void },
  data: Uint8Array,
  path: string,
  timeoutMs: number,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const stream = watchCuts((e) => stream.destroy(e), open);
    let timer: ReturnType<typeof setTimeout>;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => stream.destroy(stallError(`uploading ${path}`, timeoutMs)), timeoutMs);
    };
    stream.on("progress", arm);
    stream.once("finish", () => (clearTimeout(timer), resolve()));
    stream.once("error", (e) => (clearTimeout(timer), reject(e)));
    arm();
    watchCuts(
      (e) => stream.destroy(e),
      () => stream.end(data),
    );
  });
}

/**
 * How many bytes of the resumable upload session `uri` the server holds ("gone" when it no longer knows
 * the session), asked with an empty PUT as the protocol says. While an upload is incomplete the server
 * holds a multiple of 256 KiB, so "bytes=0-0" (what the emulator answers when it holds nothing) means 0.
 */
async function sessionOffset(client: GcsClient, uri: string, total: number): Promise<number | "gone"> {
  const { timeoutMs } = gcsRetrySettings();
  // As the library does: no credentials for an endpoint of one's own (the emulator), unless asked for.
  const custom = client as unknown as { customEndpoint?: boolean; useAuthWithCustomEndpoint?: boolean };
  const headers = new Headers(
    custom.customEndpoint && !custom.useAuthWithCustomEndpoint ? {} : await client.authClient.getRequestHeaders(uri),
  );
  headers.set("Content-Range", "bytes */*");
  const r = await fetch(uri, { method: "PUT", headers, body: new Uint8Array(0), signal: AbortSignal.timeout(timeoutMs) });
  await r.arrayBuffer();
  if (r.status === 404 || r.status === 410) return "gone";
  if (r.status >= 200 && r.status < 300) return total; // complete: the last chunk arrived though its answer did not
  if (r.status !== 308)
    throw Object.assign(new Error(`asking for the upload's offset: HTTP ${r.status} ${r.statusText}`), { code: r.status });
  const range = /bytes=0-(\d+)/.exec(r.headers.get("range") ?? "")?.[1];
  const held = range === undefined ? 0 : Number(range) + 1;
  return held === 1 ? 0 : held;
}

/**
 * The client package is an optional peer dependency (only gs:// paths need it), imported on first use;
 * when it is absent the error says how to install it.
 */
async function loadClient(options: ConstructorParameters<typeof GcsClient>[0]): Promise<GcsClient> {
  quietGcsWarnings();
  let client: typeof import("@google-cloud/storage");
  try {
    client = await import("@google-cloud/storage");
  } catch (e) {
    if ((e as { code?: string }).code !== "ERR_MODULE_NOT_FOUND" || !String((e as Error).message).includes("@google-cloud/storage"))
      throw e;
    throw new Error(
      "gs:// paths need npm package @google-cloud/storage, which is not installed: " +
        "run `npm install @google-cloud/storage` in your project (7.x or 8.x: npm picks one that runs on this Node)",
    );
  }
  return new client.Storage(options);
}
