// Turns token chunks into TFRecord shards of `shardSize` records, each record a tf.train.Example with
// `input_ids` and `attention_mask` Int64Lists. Each shard is serialized in memory and written
// atomically; shards that already exist (from an interrupted earlier run) are not rewritten.
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { FixedInt64Encoder } from "../example/fixed-int64.js";
import { FOOTER_BYTES, HEADER_BYTES, frameInPlace } from "../tfrecord/frame.js";
import type { Compression } from "../tfrecord/files.js";
import { shardFileName } from "../shards.js";
import { joinPath, storageFor } from "../storage/index.js";

const gzipAsync = promisify(gzip);

/** Shard writes allowed in flight before serialization waits for one to finish. */
const MAX_PENDING_WRITES = 4;

export interface ShardWriterOptions {
  dir: string;
  shardSize: number;
  maxLength: number;
  compression: Compression;
  /** File names already present in `dir`. */
  existing: ReadonlySet<string>;
}

export class ShardWriter {
  private readonly encoder: FixedInt64Encoder;
  private readonly maxRecordBytes: number;
  private ones = new Int32Array(0);
  private buf = new Uint8Array(1 << 20);
  private used = 0;
  private inShard = 0;
  private shardIndex = 0;
  private skipShard: boolean;
  private readonly pending: Promise<void>[] = [];
  /** Records in all shards so far (written or already present). */
  records = 0;
  /** The size and SHA-256 of each shard this writer wrote, by file name (for prepare.json). */
  readonly digests = new Map<string, { bytes: number; sha256: string }>();
  /** Shards written by this run, and shards found already present. */
  written = 0;
  reused = 0;

  constructor(private readonly options: ShardWriterOptions) {
    this.encoder = new FixedInt64Encoder([
      { name: "input_ids", length: options.maxLength },
      { name: "attention_mask", length: options.maxLength },
    ]);
    this.maxRecordBytes = HEADER_BYTES + this.encoder.maxSize() + FOOTER_BYTES;
    this.skipShard = this.exists(0, options.shardSize);
  }

  /** Adds `count` chunks laid out back to back in `ids`. */
  async add(ids: Int32Array, count: number): Promise<void> {
    const L = this.options.maxLength;
    if (this.ones.length < count * L) this.ones = new Int32Array(count * L).fill(1);
    const values = [ids, this.ones];
    for (let i = 0; i < count; i++) {
      if (!this.skipShard) {
        this.ensure(this.maxRecordBytes);
        const dataStart = this.used + HEADER_BYTES;
        const dataEnd = this.encoder.encodeInto(values, i * L, this.buf, dataStart);
        this.used = frameInPlace(this.buf, this.used, dataEnd - dataStart);
      }
      this.inShard++;
      this.records++;
      if (this.inShard === this.options.shardSize) await this.closeShard();
    }
  }

  /** Writes the last, partial shard and waits for all writes. */
  async finish(): Promise<void> {
    if (this.inShard > 0) await this.closeShard();
    await Promise.all(this.pending.splice(0));
  }

  private async closeShard(): Promise<void> {
    const name = shardFileName(this.shardIndex, this.inShard, this.options.compression);
    if (this.skipShard || this.options.existing.has(name)) this.reused++;
    else {
      const data = this.buf.slice(0, this.used);
      const path = joinPath(this.options.dir, name);
      const compressed = this.options.compression === "gzip";
      const write = (async () => {
        const stored = compressed ? await gzipAsync(data) : data;
        this.digests.set(name, { bytes: stored.byteLength, sha256: createHash("sha256").update(stored).digest("hex") });
        await storageFor(path).writeAtomic(path, stored);
      })();
      write.catch(() => {}); // awaited below or in finish(); this only stops an early unhandled rejection
      this.pending.push(write);
      this.written++;
      if (this.pending.length > MAX_PENDING_WRITES) await this.pending.shift();
    }
    this.used = 0;
    this.inShard = 0;
    this.shardIndex++;
    this.skipShard = this.exists(this.shardIndex, this.options.shardSize);
  }

  private exists(index: number, records: number): boolean {
    return this.options.existing.has(shardFileName(index, records, this.options.compression));
  }

  private ensure(n: number): void {
    if (this.used + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.used + n));
    next.set(this.buf.subarray(0, this.used));
    this.buf = next;
  }
}
