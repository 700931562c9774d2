// A fast pass over whole shards before they are trusted: every length and both checksums of every
// record, and the record count against the one in the file name. `data prepare` runs it over shards
// left by an earlier run before reusing them, and a trainer runs it over its inputs before the first
// step, so that a damaged shard is found in seconds rather than at the end of a long run.
import { countRecords, type Compression } from "./tfrecord/files.js";
import { recordsFromFileName } from "./shards.js";
import { storageFor } from "./storage/index.js";

export interface ShardCheck {
  files: number;
  /** Records in all files, as read (equal to the counts in their names, where names state them). */
  records: number;
  /** Bytes of all files as stored (compressed size for GZIP files). */
  bytes: number;
  seconds: number;
}

/** Reads one shard to its end: throws a TFRecordError or ShardCountError naming it, else returns its record count. */
export async function checkShard(path: string, compression?: Compression): Promise<number> {
  const expected = recordsFromFileName(path);
  return countRecords(path, { ...(compression ? { compression } : {}), ...(expected === undefined ? {} : { expectedRecords: expected }) });
}

/** Checks every file (a few at a time, so remote reads overlap), failing at the first bad one. */
export async function checkShards(
  files: readonly string[],
  options: { compression?: Compression; concurrency?: number } = {},
): Promise<ShardCheck> {
  const started = performance.now();
  let next = 0;
  let records = 0;
  let bytes = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      const [n, size] = await Promise.all([checkShard(file, options.compression), storageFor(file).size(file)]);
      records += n;
      bytes += size;
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 4, files.length) }, worker));
  return { files: files.length, records, bytes, seconds: (performance.now() - started) / 1000 };
}
