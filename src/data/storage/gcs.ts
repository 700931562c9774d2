// Google Cloud Storage: paths are `gs://bucket/object`. Uses `@google-cloud/storage`, which talks to
// the emulator named by STORAGE_EMULATOR_HOST when that is set.
//
// Atomic writes: an object becomes visible only when its upload completes (GCS commits an object
// as a whole at the end of the upload request), so a writer that is aborted or killed mid-upload
// leaves nothing under the final name. No temporary objects are needed.
import type { Bucket, Storage as GcsClient } from "@google-cloud/storage";
import { writeAllAtomically, type AtomicWriter, type ReadRange, type Storage } from "./types.js";
import { globToRegExp, hasWildcard, literalPrefix } from "./glob.js";

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
  // second, which local-only runs (and every worker thread) should not pay.
  private async bucket(name: string): Promise<Bucket> {
    this.client ??= import("@google-cloud/storage").then(({ Storage }) => new Storage());
    return (await this.client).bucket(name);
  }

  async glob(pattern: string): Promise<string[]> {
    const { bucket, object } = parseGcsPath(pattern);
    if (!hasWildcard(object)) return (await this.isFile(pattern)) ? [pattern] : [];
    const re = globToRegExp(object);
    const [files] = await (await this.bucket(bucket)).getFiles({ prefix: literalPrefix(object), autoPaginate: true });
    return files
      .map((f) => f.name)
      .filter((name) => re.test(name))
      .sort()
      .map((name) => `gs://${bucket}/${name}`);
  }

  async isFile(path: string): Promise<boolean> {
    const { bucket, object } = parseGcsPath(path);
    if (object === "" || object.endsWith("/")) return false;
    const [exists] = await (await this.bucket(bucket)).file(object).exists();
    return exists;
  }

  async size(path: string): Promise<number> {
    const { bucket, object } = parseGcsPath(path);
    const [meta] = await (await this.bucket(bucket)).file(object).getMetadata();
    return Number(meta.size);
  }

  async *read(path: string, range: ReadRange = {}): AsyncIterable<Uint8Array> {
    const { bucket, object } = parseGcsPath(path);
    const { start = 0, end } = range;
    if (end !== undefined && end <= start) return;
    const ranged = start > 0 || end !== undefined;
    yield* (await this.bucket(bucket)).file(object).createReadStream({
      // The library's end is inclusive. Whole-object checksums cannot validate a partial read.
      ...(ranged ? { start, end: end === undefined ? undefined : end - 1, validation: false } : {}),
      decompress: false,
    });
  }

  async readAll(path: string): Promise<Uint8Array> {
    const { bucket, object } = parseGcsPath(path);
    const [data] = await (await this.bucket(bucket)).file(object).download();
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
      stream.once("error", reject);
    });
    // Until commit or abort, an upload error is held here and reported by the next call.
    finished.catch(() => {});
    return {
      write(chunk) {
        return new Promise((resolve, reject) => {
          stream.write(chunk, (err) => (err ? reject(err) : resolve()));
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
    await (await this.bucket(bucket)).file(object).delete({ ignoreNotFound: true });
  }

  async staleTemporaries(): Promise<string[]> {
    return []; // uploads never leave partial objects behind
  }
}
