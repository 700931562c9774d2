// A disk filling up during `data prepare`: a short write is finished or fails with one message naming
// the file and the space it needed, nothing half-written appears under a final name, and a re-run
// does not trust a shard that was cut short under its final name.
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { LocalStorage, type OpenForWriting } from "../../src/data/storage/local.js";
import { prepareDataset, type PrepareOptions } from "../../src/data/prepare/prepare.js";
import { frameRecords } from "../../src/data/tfrecord/frame.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";

const fixture = await makeTestCorpus(3);

/**
 * Files whose writes store at most `perCall` bytes each, and fail with ENOSPC once `capacity` bytes
 * are on disk, as the kernel does when a disk fills: first a short write, then the error.
 */
function fillingDisk(perCall: number, capacity = Infinity): OpenForWriting {
  let used = 0;
  return async (path, flags) => {
    const handle = await open(path, flags);
    const write = async (buffer: Uint8Array, offset = 0, length = buffer.length - offset) => {
      const n = Math.min(length, perCall, capacity - used);
      if (n <= 0) throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: "ENOSPC", errno: -28 });
      used += n;
      return handle.write(buffer, offset, n);
    };
    return new Proxy(handle, { get: (target, key) => (key === "write" ? write : Reflect.get(target, key, target)?.bind?.(target)) });
  };
}

const shard = frameRecords(Array.from({ length: 40 }, (_, i) => Uint8Array.from({ length: 1000 + i }, (_, j) => (i + j) & 0xff)));

test("a write the file system takes in short pieces is finished before the file is committed", async () => {
  const path = join(fixture.dir, "short", "dataset-0-40.tfrecord");
  await new LocalStorage(fillingDisk(4096)).writeAtomic(path, shard);
  assert.deepEqual(new Uint8Array(readFileSync(path)), shard);
});

test("ENOSPC is one message naming the file and the space it needed; nothing appears under the final name", async () => {
  const dir = join(fixture.dir, "full");
  const path = join(dir, "dataset-0-40.tfrecord");
  await assert.rejects(
    new LocalStorage(fillingDisk(4096, 10_000)).writeAtomic(path, shard),
    (e: Error) =>
      e.message ===
      `no space left on the device to write ${path}: ${shard.length - 10_000} more bytes ` +
        `(${((shard.length - 10_000) / 2 ** 20).toFixed(1)} MiB) were needed for it. Free up space there, or write to another place.`,
  );
  assert.deepEqual(readdirSync(dir), [], "neither the final file nor a temporary one is left");
});

test("a re-run of prepare rewrites shards cut short under their final names instead of reusing them", async () => {
  const options = (out: string): PrepareOptions => ({
    tokenizer: fixture.tokenizerDir,
    inputs: [fixture.corpus],
    out,
    maxLength: 32,
    shardSize: 20,
    groupSize: 2,
    progress: null,
    workers: 1,
  });
  const out = join(fixture.dir, "prepared");
  const first = await prepareDataset(options(out));
  const dir = join(out, "train");
  const names = readdirSync(dir)
    .filter((n) => n.endsWith(".tfrecord"))
    .sort();
  assert.ok(names.length >= 4, `${names.length} shards`);
  const whole = new Map(names.map((n) => [n, readFileSync(join(dir, n))]));
  const [midRecord, atBoundary, emptied] = names.filter((n) => n.endsWith("-20.tfrecord")).map((n) => join(dir, n));
  truncateSync(midRecord!, 1000); // what a short write treated as complete left behind
  const size = readFileSync(atBoundary!).length;
  writeFileSync(atBoundary!, readFileSync(atBoundary!).subarray(0, recordStarts(readFileSync(atBoundary!))[5]!));
  assert.ok(readFileSync(atBoundary!).length < size);
  truncateSync(emptied!, 0);
  // A run that was killed before it finished: its manifest says so.
  const manifest = join(dir, "prepare.json");
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, "utf8")), complete: false }));

  const again = await prepareDataset(options(out));
  const train = again.splits.find((s) => s.split === "train")!;
  assert.equal(train.shardsWritten, 3);
  assert.equal(train.shardsReused, names.length - 3);
  assert.equal(train.damagedShards.length, 3);
  assert.match(train.damagedShards[0]!, new RegExp(`^${midRecord}: bad TFRecord at byte offset \\d+: truncated record`));
  assert.match(train.damagedShards[1]!, new RegExp(`^${atBoundary}: holds 5 records but its name says 20`));
  assert.match(train.damagedShards[2]!, new RegExp(`^${emptied}: holds 0 records but its name says 20`));
  for (const [n, bytes] of whole) assert.deepEqual(readFileSync(join(dir, n)), bytes, `${n} is whole again`);
  assert.equal(JSON.parse(readFileSync(manifest, "utf8")).complete, true);
  assert.equal(train.records, first.splits.find((s) => s.split === "train")!.records);
  assert.ok(!existsSync(join(out, "validation")));
});

/** Byte offsets where each record of a plain TFRecord file starts. */
function recordStarts(file: Uint8Array): number[] {
  const starts: number[] = [];
  for (let at = 0; at < file.length;) {
    starts.push(at);
    at += 12 + new DataView(file.buffer, file.byteOffset + at, 8).getUint32(0, true) + 4;
  }
  return starts;
}
