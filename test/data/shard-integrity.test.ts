// Wrong or partial data is refused before or where it is read: shards short of the records their
// names state, extra shards, unfinished prepare outputs, another tokenizer's shards; a pass over all
// inputs before training; bad records skipped are counted as records, by file.
import test from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDataset } from "../../src/data/pipeline/dataset.js";
import { checkDataTokenizer } from "../../src/data/prepare/manifest.js";
import { ShardCountError } from "../../src/data/tfrecord/errors.js";
import { MAX_LENGTH, prepareTestShards } from "../helpers/prepared-shards.js";

const { fixture, prepared, shardNames } = await prepareTestShards(3);
let copies = 0;

/** Checks a rejection's message (not its name) against `re`. */
const message = (re: RegExp) => (e: unknown) => e instanceof Error && re.test(e.message);

/** A fresh copy of the prepared split to damage. */
function copyOfSplit(): string {
  const dir = join(fixture.dir, `copy-${copies++}`, "train");
  cpSync(join(prepared, "train"), dir, { recursive: true });
  return dir;
}

async function readAll(dir: string, extra: { ignoreErrors?: boolean } = {}): Promise<number> {
  const ds = await openDataset({ files: dir, maxLength: MAX_LENGTH, batchSize: 1, shuffle: false, ...extra });
  let n = 0;
  for await (const _ of ds) n++;
  return n;
}

/** Byte offsets where each record of a plain TFRecord file starts. */
function recordStarts(file: Uint8Array): number[] {
  const starts: number[] = [];
  for (let at = 0; at < file.length; at += 16 + new DataView(file.buffer, file.byteOffset + at, 8).getUint32(0, true)) starts.push(at);
  return starts;
}

test("a shard cut at a record boundary, or emptied, fails when it has been read, naming it and both counts", async () => {
  const dir = copyOfSplit();
  const shard = join(dir, shardNames[0]!);
  const bytes = readFileSync(shard);
  writeFileSync(shard, bytes.subarray(0, recordStarts(bytes)[7]!));
  // prepare.json's shard sizes refuse it at open...
  await assert.rejects(
    readAll(dir),
    message(new RegExp(`^${shard} is not the shard data prepare wrote: it is \\d+ bytes, prepare.json recorded`)),
  );
  // ...and without them (a manifest of an older release), reading it through does.
  const manifest = JSON.parse(readFileSync(join(dir, "prepare.json"), "utf8"));
  delete manifest.shards;
  writeFileSync(join(dir, "prepare.json"), JSON.stringify(manifest));
  await assert.rejects(
    readAll(dir),
    (e: unknown) =>
      e instanceof ShardCountError && e.message.startsWith(`${shard}: holds 7 records but its name says 20 (it was cut short`),
  );
  writeFileSync(shard, new Uint8Array(0));
  await assert.rejects(readAll(dir), message(new RegExp(`^${shard}: holds 0 records but its name says 20`)));
});

test("checkShards reads every input through before training: the true total, or the damaged shard", async () => {
  const ds = await openDataset({ files: join(prepared, "train"), maxLength: MAX_LENGTH, batchSize: 4 });
  const check = await ds.checkShards();
  assert.equal(check.records, ds.numRecords);
  assert.equal(check.files, shardNames.length);
  assert.ok(check.bytes > 0 && check.seconds >= 0);

  const dir = copyOfSplit();
  const shard = join(dir, shardNames.at(-1)!);
  const bytes = readFileSync(shard);
  bytes[recordStarts(bytes)[2]! + 20]! ^= 1;
  writeFileSync(shard, bytes);
  const damaged = await openDataset({ files: dir, maxLength: MAX_LENGTH, batchSize: 4 });
  await assert.rejects(
    damaged.checkShards(),
    message(new RegExp(`^${shard}: bad TFRecord at byte offset ${recordStarts(bytes)[2]}: data checksum mismatch`)),
  );
});

test("an extra or missing shard in a prepared directory is refused on open", async () => {
  const dir = copyOfSplit();
  copyFileSync(join(dir, shardNames[0]!), join(dir, `dataset-${shardNames.length}-20.tfrecord`));
  await assert.rejects(
    openDataset({ files: dir, maxLength: MAX_LENGTH, batchSize: 1 }),
    message(
      new RegExp(
        `^${dir}: the shards are not the ones data prepare wrote there: the shard names add up to \\d+ records, prepare.json records \\d+`,
      ),
    ),
  );
  const gap = copyOfSplit();
  rmSync(
    join(
      gap,
      shardNames.find((n) => n.startsWith("dataset-1-"))!,
    ),
  );
  await assert.rejects(openDataset({ files: gap, maxLength: MAX_LENGTH, batchSize: 1 }), /shard 1 is missing/);
});

test("an unfinished prepare output is refused, naming the command that finishes it", async () => {
  const dir = copyOfSplit();
  const manifest = join(dir, "prepare.json");
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, "utf8")), complete: false }));
  for (const files of [dir, join(dir, "*.tfrecord"), join(dir, shardNames[0]!)]) {
    await assert.rejects(
      openDataset({ files, maxLength: MAX_LENGTH, batchSize: 1 }),
      (e: Error) =>
        e.message.startsWith(`${dir} is an unfinished data prepare output (prepare.json says "complete": false`) &&
        e.message.includes(`kiln data prepare --tokenizer DIR --input ${fixture.corpus} --out ${join(dir, "..")}`),
    );
  }
});

test("shards are checked against the tokenizer they were prepared with", async () => {
  const ds = await openDataset({ files: join(prepared, "train"), maxLength: MAX_LENGTH, batchSize: 1 });
  await checkDataTokenizer(ds.files, fixture.tokenizerDir);
  const other = join(fixture.dir, "other-tokenizer");
  cpSync(fixture.tokenizerDir, other, { recursive: true });
  writeFileSync(join(other, "tokenizer.json"), readFileSync(join(other, "tokenizer.json"), "utf8").replace("[MASK]", "[MASK2]"));
  await assert.rejects(
    checkDataTokenizer(ds.files, other),
    message(
      new RegExp(
        `^checkDataTokenizer: tokenizerDir = ".*" \\(a string\\) ` +
          `is not the tokenizer the shards in ${join(prepared, "train")} were prepared with: ` +
          `.*prepare\\.json records tokenizer\\.json sha256 [0-9a-f]{12}…, but ${join(other, "tokenizer.json")} has sha256`,
      ),
    ),
  );
});

test("skipped bad records are counted as records, once, by file; the error names --skip-bad-records", async () => {
  const dir = copyOfSplit();
  const dataBad = join(dir, shardNames[0]!);
  const framingBad = join(dir, shardNames[1]!);
  let bytes = readFileSync(dataBad);
  const starts0 = recordStarts(bytes);
  bytes[starts0[3]! + 20]! ^= 1; // one record's data
  writeFileSync(dataBad, bytes);
  bytes = readFileSync(framingBad);
  const starts1 = recordStarts(bytes);
  bytes[starts1[15]!]! ^= 1; // a length: the last 5 of its 20 records are lost with it
  writeFileSync(framingBad, bytes);

  await assert.rejects(readAll(dir), /skip bad records with --skip-bad-records \(ignoreErrors in the API\)/);
  const ds = await openDataset({ files: dir, maxLength: MAX_LENGTH, batchSize: 1, shuffle: false, ignoreErrors: true, epochs: 2 });
  // The pass before training finds them all; reading two epochs past them counts each place once.
  const check = await ds.checkShards();
  assert.deepEqual([check.records, check.skipped, ds.skipped.total], [ds.numRecords - 6, 6, 6]);
  let read = 0;
  for await (const _ of ds) read++;
  assert.equal(ds.skipped.total, 6);
  assert.equal(read, 2 * (ds.numRecords - 6));
  assert.deepEqual(
    ds.skipped.files().map((f) => [f.file, f.records, f.places.map((p) => p.offset)]),
    [
      [dataBad, 1, [starts0[3]]],
      [framingBad, 5, [starts1[15]]],
    ],
  );
  assert.match(ds.skipped.summary(), /^skipped 6 bad records in 2 files:\n {2}.*: 1 record \(byte \d+: data checksum mismatch/);
});
