// Shards of serialized records, `shardSize` records each, named as data prepare names shards
// (dataset-{index}-{records}.tfrecord) so the pipeline's record counts and checks apply. Each shard is
// written atomically and its size and SHA-256 kept for prepare.json.
import { createHash } from "node:crypto";
import { frameRecords } from "../tfrecord/frame.js";
import { shardFileName } from "../shards.js";
import { joinPath, storageFor } from "../storage/index.js";
import type { ShardDigest } from "../prepare/manifest.js";

export class RecordShardWriter {
  private pending: Uint8Array[] = [];
  private index = 0;
  records = 0;
  readonly digests = new Map<string, ShardDigest>();

  constructor(
    private readonly dir: string,
    private readonly shardSize: number,
  ) {}

  async add(record: Uint8Array): Promise<void> {
    this.pending.push(record);
    this.records++;
    if (this.pending.length === this.shardSize) await this.flush();
  }

  async finish(): Promise<void> {
    if (this.pending.length > 0) await this.flush();
  }

  private async flush(): Promise<void> {
    const name = shardFileName(this.index++, this.pending.length);
    const bytes = frameRecords(this.pending);
    this.pending = [];
    this.digests.set(name, { bytes: bytes.byteLength, sha256: createHash("sha256").update(bytes).digest("hex") });
    const path = joinPath(this.dir, name);
    await storageFor(path).writeAtomic(path, bytes);
  }
}
