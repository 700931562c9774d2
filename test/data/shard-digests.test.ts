// data prepare records each shard's size and SHA-256 in prepare.json. A shard replaced by another valid
// one (every record checksum correct, the same record count and here even the same size: two records
// swapped) reads without an error, so only the digest can tell: the pass over every shard before
// training (checkShards) refuses it, naming it; a replacement of another size is refused at open.
import test from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cpSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDataset } from "../../src/data/pipeline/dataset.js";
import { ShardDigestError } from "../../src/data/prepare/manifest.js";
import { MAX_LENGTH, prepareTestShards } from "../helpers/prepared-shards.js";

const { fixture, prepared, shardNames } = await prepareTestShards(2);
const train = join(prepared, "train");

/** [start, end) of each framed record of a plain TFRecord file. */
function frames(file: Uint8Array): [number, number][] {
  const out: [number, number][] = [];
  for (let at = 0; at < file.length;) {
    const end = at + 16 + new DataView(file.buffer, file.byteOffset + at, 8).getUint32(0, true);
    out.push([at, end]);
    at = end;
  }
  return out;
}

test("prepare.json records the size and SHA-256 of every shard it wrote", () => {
  const manifest = JSON.parse(readFileSync(join(train, "prepare.json"), "utf8"));
  assert.deepEqual(Object.keys(manifest.shards).sort(), shardNames);
  for (const name of shardNames) {
    const bytes = readFileSync(join(train, name));
    assert.deepEqual(manifest.shards[name], { bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") });
  }
});

test("a shard replaced by a valid one of the same size is refused by the check before training, by name", async () => {
  const dir = join(fixture.dir, "swapped", "train");
  cpSync(train, dir, { recursive: true });
  const shard = join(dir, shardNames[0]!);
  const bytes = readFileSync(shard);
  const [a, b] = frames(bytes);
  // The first two records swapped: each frame keeps its own checksums, and the file its size.
  const swapped = Buffer.concat([bytes.subarray(b![0], b![1]), bytes.subarray(a![0], a![1]), bytes.subarray(b![1])]);
  assert.equal(swapped.length, bytes.length);
  assert.notDeepEqual(swapped, bytes);
  writeFileSync(shard, swapped);
  const ds = await openDataset({ files: dir, maxLength: MAX_LENGTH, batchSize: 1, shuffle: false });
  let records = 0;
  for await (const _ of ds) records++;
  assert.equal(records, ds.numRecords, "the record checksums cannot see it");
  await assert.rejects(
    ds.checkShards(),
    (e: Error) =>
      e instanceof ShardDigestError &&
      e.message.startsWith(`${shard} is not the shard data prepare wrote: its SHA-256 `) &&
      e.message.includes("prepare the data again"),
  );
});

test("a shard replaced by one of another size is refused when the dataset is opened", async () => {
  const dir = join(fixture.dir, "replaced", "train");
  cpSync(train, dir, { recursive: true });
  const shard = join(dir, shardNames[0]!);
  const bytes = readFileSync(shard);
  const [first] = frames(bytes);
  // Another valid shard of 20 records: the first record repeated.
  writeFileSync(shard, Buffer.concat(Array.from({ length: 20 }, () => bytes.subarray(first![0], first![1]))));
  assert.notEqual(statSync(shard).size, bytes.length);
  await assert.rejects(
    openDataset({ files: dir, maxLength: MAX_LENGTH, batchSize: 1 }),
    (e: Error) => e instanceof ShardDigestError && e.message.includes(`prepare.json recorded ${bytes.length}`),
  );
});
