// Finding a dataset's files, giving each process its share, and counting records.
import { countRecords, type Compression } from "../tfrecord/files.js";
import { recordsFromFileName } from "../shards.js";
import { hasWildcard } from "../storage/glob.js";
import { joinPath, storageFor } from "../storage/index.js";
import { checkPreparedDir, parentDir } from "../prepare/manifest.js";

/**
 * The TFRecord files a spec names, sorted: a glob, a single file, or a directory (meaning its
 * `*.tfrecord` and `*.tfrecord.gz` files). Several specs are merged. No match is an error.
 */
export async function resolveFiles(specs: string | readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const spec of typeof specs === "string" ? [specs] : specs) {
    const storage = storageFor(spec);
    let matches: string[];
    if (hasWildcard(spec)) matches = await storage.glob(spec);
    else if (await storage.isFile(spec)) matches = [spec];
    else matches = [...(await storage.glob(joinPath(spec, "*.tfrecord"))), ...(await storage.glob(joinPath(spec, "*.tfrecord.gz")))];
    if (matches.length === 0) {
      throw new Error(
        `no TFRecord files found at ${spec}: pass a directory holding *.tfrecord files, ` +
          `a glob such as "${joinPath(spec, "*.tfrecord")}", or a file`,
      );
    }
    for (const m of matches) found.add(m);
  }
  return [...found].sort();
}

/** The files of process `index` of `count`: every count-th file, starting at `index`. */
export function processShare(files: readonly string[], index: number, count: number): string[] {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`processCount must be a positive integer, got ${count}`);
  if (!Number.isInteger(index) || index < 0 || index >= count)
    throw new RangeError(`processIndex must be an integer in [0, ${count}), got ${index}`);
  if (files.length < count) {
    throw new RangeError(
      `${files.length} files cannot be shared among ${count} processes: every process needs at least one; write more, smaller shards`,
    );
  }
  return files.filter((_, i) => i % count === index);
}

/**
 * Records per file: the count in the file name (`…-{shard}-{records}.tfrecord`, as data prepare
 * writes them), or, for files named otherwise, counted by reading the file.
 */
export async function recordCounts(files: readonly string[], compression?: Compression): Promise<number[]> {
  return Promise.all(files.map(async (f) => recordsFromFileName(f) ?? (await countRecords(f, compression ? { compression } : {}))));
}

/**
 * Refuses inputs that `data prepare` left unfinished (every directory holding a matched file is
 * checked), and, for inputs named as a directory, a set of shards that is not the one prepare wrote
 * (an extra, repeated or missing shard would silently change the epochs and the record count).
 */
export async function checkPreparedInputs(specs: string | readonly string[], files: readonly string[]): Promise<void> {
  const dirs = new Set(files.map(parentDir));
  for (const spec of typeof specs === "string" ? [specs] : specs) {
    if (hasWildcard(spec) || (await storageFor(spec).isFile(spec))) continue;
    const dir = spec.replace(/\/+$/, "") || "/";
    await checkPreparedDir(
      dir,
      files.filter((f) => parentDir(f) === dir),
    );
    dirs.delete(dir);
  }
  for (const dir of dirs) await checkPreparedDir(dir);
}
