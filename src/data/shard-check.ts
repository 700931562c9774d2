// A fast pass over whole shards before they are trusted: every length and both checksums of every
// record, and the record count against the one in the file name. `data prepare` runs it over shards
// left by an earlier run before reusing them, and a trainer runs it over its inputs before the first
// step, so that a damaged shard is found in seconds rather than at the end of a long run. Where
// prepare.json records the shards' digests, the same pass checks each shard's SHA-256 (a replaced shard
// has valid checksums of its own).
import { openRecordReader, type Compression } from "./tfrecord/files.js";
import type { TFRecordError } from "./tfrecord/errors.js";
import { recordsFromFileName } from "./shards.js";
import { storageFor } from "./storage/index.js";
import { createHash } from "node:crypto";
import { recordedDigest, ShardDigestError, type PrepareManifest, type ShardDigest } from "./prepare/manifest.js";

/** What checking shards found: files, good and skipped records, bytes, time, compression. */
export interface ShardCheck {
  files: number;
  /** Good records in all files (equal to the counts in their names, where names state them, less those skipped). */
  records: number;
  /** Records skipped as bad (only when skipping was asked for; otherwise the first bad one is an error). */
  skipped: number;
  /** Bytes of all files as stored (compressed size for GZIP files). */
  bytes: number;
  seconds: number;
}

export interface ShardCheckOptions {
  compression?: Compression;
  /** Files read at once, so that remote reads overlap. Default 4. */
  concurrency?: number;
  /** Skip bad records instead of failing, reporting each (with the records it cost) to onSkip. */
  ignoreErrors?: boolean;
  onSkip?: (error: TFRecordError, records: number) => void;
}

/**
 * Reads one shard to its end: throws a TFRecordError or ShardCountError naming it (unless skipping bad
 * records), else returns its good and skipped record counts.
 */
export async function checkShard(
  path: string,
  options: Omit<ShardCheckOptions, "concurrency"> & {
    /** The digest prepare.json records: a shard whose bytes hash otherwise is refused (ShardDigestError). */
    expect?: ShardDigest;
    /** Also compute the shard's digest (returned as `digest`). */
    digest?: boolean;
  } = {},
): Promise<{ records: number; skipped: number; digest?: ShardDigest }> {
  const { expect, digest: wantDigest, ...read } = options;
  const expected = recordsFromFileName(path);
  // Hashed as the bytes stream past for the record checksums: no second read.
  const hash = expect || wantDigest ? createHash("sha256") : undefined;
  let bytes = 0;
  const onBytes = hash ? (chunk: Uint8Array) => ((bytes += chunk.byteLength), hash.update(chunk)) : undefined;
  const reader = openRecordReader(path, {
    ...read,
    ...(expected === undefined ? {} : { expectedRecords: expected }),
    ...(onBytes ? { onBytes } : {}),
  });
  let records = 0;
  try {
    while ((await reader.read()) !== null) records++;
  } finally {
    await reader.close();
  }
  const digest = hash ? { bytes, sha256: hash.digest("hex") } : undefined;
  // With bad records skipped the bytes differ by design: the digest then says nothing more.
  if (expect && digest && reader.skipped === 0 && (digest.bytes !== expect.bytes || digest.sha256 !== expect.sha256))
    throw new ShardDigestError(
      path,
      digest.bytes !== expect.bytes
        ? `it is ${digest.bytes} bytes, prepare.json recorded ${expect.bytes}`
        : `its SHA-256 ${digest.sha256.slice(0, 12)}… differs from the ${expect.sha256.slice(0, 12)}… prepare.json recorded`,
    );
  return { records, skipped: reader.skipped, ...(digest ? { digest } : {}) };
}

/** Checks every file, failing at the first bad one (or tallying bad records, when skipping them). */
export async function checkShards(files: readonly string[], options: ShardCheckOptions = {}): Promise<ShardCheck> {
  const started = performance.now();
  const { concurrency = 4, ...one } = options;
  let next = 0;
  const total = { records: 0, skipped: 0, bytes: 0 };
  const manifests = new Map<string, Promise<PrepareManifest | undefined>>();
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      // Shards data prepare wrote are also held to the digests its prepare.json records.
      const expect = await recordedDigest(file, manifests);
      const [counts, size] = await Promise.all([checkShard(file, { ...one, ...(expect ? { expect } : {}) }), storageFor(file).size(file)]);
      total.records += counts.records;
      total.skipped += counts.skipped;
      total.bytes += size;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  return { files: files.length, ...total, seconds: (performance.now() - started) / 1000 };
}
