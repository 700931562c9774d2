// Google Cloud Storage: paths are `gs://bucket/object`. Uses `@google-cloud/storage`, which talks to
// the emulator named by STORAGE_EMULATOR_HOST when that is set.
//
// Atomic writes: an object becomes visible only when its upload completes (GCS commits an object
// as a whole at the end of the upload request), so a writer that is aborted or killed mid-upload
// leaves nothing under the final name. No temporary objects are needed.
import type { Bucket, Storage as GcsClient } from "@google-cloud/storage";
import { writeAllAtomically, type AtomicWriter, type ReadRange, type Storage } from "./types.js";
import { globToRegExp, hasWildcard, literalPrefix } from "./glob.js";
import { GcsError, describeGcsError, gcsCall, quietGcsWarnings } from "./gcs-errors.js";

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
  private probeClient: Promise<GcsClient> | undefined;

  // The library is loaded and the client created on first use: loading it takes a good fraction of a
  // second, which local-only runs (and every worker thread) should not pay.
  private async bucket(name: string): Promise<Bucket> {
    this.client ??= loadClient({});
    return (await this.client).bucket(name);
  }

  /**
   * Checks that `path` (a gs:// directory or object) can be listed, with a single request and no
   * retries, so that missing credentials, no network or a missing bucket are reported at once (the
   * client's retries with backoff take tens of seconds to give up). Returns whether any object lies
   * under `path` as a directory.
   */
  async probe(path: string): Promise<boolean> {
    const { bucket, object } = parseGcsPath(path);
    this.probeClient ??= loadClient({ retryOptions: { autoRetry: false, maxRetries: 0 } });
    const client = await this.probeClient;
    const prefix = object === "" || object.endsWith("/") ? object : `${object}/`;
    const [files] = await gcsCall(path, () => client.bucket(bucket).getFiles({ prefix, maxResults: 1, autoPaginate: false }), true);
    return files.length > 0;
  }

  async glob(pattern: string): Promise<string[]> {
    const { bucket, object } = parseGcsPath(pattern);
    if (!hasWildcard(object)) return (await this.isFile(pattern)) ? [pattern] : [];
    const re = globToRegExp(object);
    const b = await this.bucket(bucket);
    const [files] = await gcsCall(pattern, () => b.getFiles({ prefix: literalPrefix(object), autoPaginate: true }), true);
    return files
      .map((f) => f.name)
      .filter((name) => re.test(name))
      .sort()
      .map((name) => `gs://${bucket}/${name}`);
  }

  async isFile(path: string): Promise<boolean> {
    const { bucket, object } = parseGcsPath(path);
    if (object === "" || object.endsWith("/")) return false;
    const b = await this.bucket(bucket);
    const [exists] = await gcsCall(path, () => b.file(object).exists());
    return exists;
  }

  async size(path: string): Promise<number> {
    const { bucket, object } = parseGcsPath(path);
    const b = await this.bucket(bucket);
    const [meta] = await gcsCall(path, () => b.file(object).getMetadata());
    return Number(meta.size);
  }

  async *read(path: string, range: ReadRange = {}): AsyncIterable<Uint8Array> {
    const { bucket, object } = parseGcsPath(path);
    const { start = 0, end } = range;
    if (end !== undefined && end <= start) return;
    const ranged = start > 0 || end !== undefined;
    const stream = (await this.bucket(bucket)).file(object).createReadStream({
      // The library's end is inclusive. Whole-object checksums cannot validate a partial read.
      ...(ranged ? { start, end: end === undefined ? undefined : end - 1, validation: false } : {}),
      decompress: false,
    });
    try {
      yield* stream;
    } catch (e) {
      throw new GcsError(describeGcsError(e, path), e);
    }
  }

  async readAll(path: string): Promise<Uint8Array> {
    const { bucket, object } = parseGcsPath(path);
    const b = await this.bucket(bucket);
    const [data] = await gcsCall(path, () => b.file(object).download());
    return data;
  }

  async createWriter(path: string): Promise<AtomicWriter> {
    const { bucket, object } = parseGcsPath(path);
    const stream = (await this.bucket(bucket)).file(object).createWriteStream({
      resumable: false,
      contentType: "application/octet-stream",
      validation: "crc32c",
    });
    const finished = new Promise<void>((resolve, reject) => {
      stream.once("finish", resolve);
      stream.once("error", (e) => reject(new GcsError(describeGcsError(e, path), e)));
    });
    // Until commit or abort, an upload error is held here and reported by the next call.
    finished.catch(() => {});
    return {
      write(chunk) {
        return new Promise((resolve, reject) => {
          stream.write(chunk, (err) => (err ? reject(new GcsError(describeGcsError(err, path), err)) : resolve()));
        });
      },
      async commit() {
        stream.end();
        await finished;
      },
      async abort() {
        stream.destroy(new Error(`upload of ${path} aborted`));
        await finished.catch(() => {});
      },
    };
  }

  async writeAtomic(path: string, data: Uint8Array): Promise<void> {
    await writeAllAtomically(await this.createWriter(path), data);
  }

  async remove(path: string): Promise<void> {
    const { bucket, object } = parseGcsPath(path);
    const b = await this.bucket(bucket);
    await gcsCall(path, () => b.file(object).delete({ ignoreNotFound: true }));
  }

  async staleTemporaries(): Promise<string[]> {
    return []; // uploads never leave partial objects behind
  }
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
        "run `npm install @google-cloud/storage` in your project (it needs Node 22 or newer)",
    );
  }
  return new client.Storage(options);
}
