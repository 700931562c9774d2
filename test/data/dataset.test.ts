import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FixedInt64Encoder } from "../../src/data/example/fixed-int64.js";
import { writeRecords } from "../../src/data/tfrecord/files.js";
import { openDataset, type DatasetOptions, type DatasetState } from "../../src/data/pipeline/dataset.js";
import { maskingMap } from "../../src/data/mlm/mask.js";
import type { TokenBatch } from "../../src/data/batch.js";
import { TFRecordError } from "../../src/data/tfrecord/errors.js";
import { RecordParseError } from "../../src/data/pipeline/batch-stream.js";
import { tempDir } from "../helpers/temp-dir.js";

const L = 8;
const encoder = new FixedInt64Encoder([
  { name: "input_ids", length: L },
  { name: "attention_mask", length: L },
]);

/** Record `id`: input_ids [id, id+1, …], attention mask with a padded tail that depends on id. */
function record(id: number): Uint8Array {
  const ids = Int32Array.from({ length: L }, (_, p) => id * 10 + p);
  const real = 2 + (id % (L - 1));
  const mask = Int32Array.from({ length: L }, (_, p) => (p < real ? 1 : 0));
  return encoder.encode([ids, mask]);
}

/** Writes shards of the given sizes; record ids are consecutive across shards. */
async function writeShards(
  sizes: number[],
  name = (i: number, n: number) => `dataset-${i}-${n}.tfrecord`,
): Promise<{ dir: string; files: string[] }> {
  const dir = tempDir("kiln-dataset-");
  const files: string[] = [];
  let next = 0;
  for (const [i, n] of sizes.entries()) {
    const path = join(dir, name(i, n));
    await writeRecords(
      path,
      Array.from({ length: n }, () => record(next++)),
    );
    files.push(path);
  }
  return { dir, files };
}

/** The record id of each row of a batch. */
const rowIds = (b: TokenBatch) => Array.from({ length: b.shape[0] }, (_, r) => b.inputIds[r * L]! / 10);

async function collect(options: DatasetOptions): Promise<number[][]> {
  const out: number[][] = [];
  for await (const b of await openDataset(options)) out.push(rowIds(b));
  return out;
}

const SIZES = [7, 5, 9, 3, 6]; // 30 records; file names do not sort in index order past 9, on purpose
const shards = await writeShards(SIZES);

test("evaluation order: files in sorted order, records interleaved round robin", async () => {
  const sequential = await collect({ files: shards.dir, maxLength: L, batchSize: 4, shuffle: false, cycleLength: 1, dropRemainder: false });
  assert.deepEqual(
    sequential.flat(),
    Array.from({ length: 30 }, (_, i) => i),
  );
  assert.deepEqual(
    sequential.map((b) => b.length),
    [4, 4, 4, 4, 4, 4, 4, 2],
  );

  // Round robin over 2 open files; an exhausted file's slot goes to the next file.
  const two = (
    await collect({ files: shards.dir, maxLength: L, batchSize: 30, shuffle: false, cycleLength: 2, dropRemainder: false })
  ).flat();
  const expected: number[] = [];
  const queues = SIZES.map((n, f) => Array.from({ length: n }, (_, i) => SIZES.slice(0, f).reduce((a, b) => a + b, 0) + i));
  const slots = [queues[0]!, queues[1]!];
  let nextFile = 2;
  for (let turn = 0; slots.length > 0;) {
    if (turn >= slots.length) turn = 0;
    const slot = slots[turn]!;
    if (slot.length === 0) {
      if (nextFile < queues.length) slots[turn] = queues[nextFile++]!;
      else slots.splice(turn, 1);
      continue;
    }
    expected.push(slot.shift()!);
    turn++;
  }
  assert.deepEqual(two, expected);
});

test("batches carry the parsed features with their padding", async () => {
  const [batch] = await collectBatches({ files: shards.dir, maxLength: L, batchSize: 3, shuffle: false, cycleLength: 1 }, 1);
  assert.deepEqual(batch!.shape, [3, L]);
  assert.deepEqual([...batch!.inputIds.subarray(L, 2 * L)], [10, 11, 12, 13, 14, 15, 16, 17]);
  assert.deepEqual([...batch!.attentionMask.subarray(L, 2 * L)], [1, 1, 1, 0, 0, 0, 0, 0]);
});

async function collectBatches(options: DatasetOptions, n: number): Promise<TokenBatch[]> {
  const out: TokenBatch[] = [];
  for await (const b of await openDataset(options)) {
    out.push(b);
    if (out.length === n) break; // leaving early must release the files without hanging
  }
  return out;
}

test("training order is a seeded shuffle, different every epoch, each record once per epoch", async () => {
  const options: DatasetOptions = {
    files: join(shards.dir, "*.tfrecord"),
    maxLength: L,
    batchSize: 5,
    seed: 42,
    shuffleBuffer: 10,
    epochs: 3,
    dropRemainder: false,
    cycleLength: 2,
  };
  const run1 = await collect(options);
  const run2 = await collect(options);
  assert.deepEqual(run1, run2, "same seed, same batches");
  const epochs = [run1.slice(0, 6).flat(), run1.slice(6, 12).flat(), run1.slice(12).flat()];
  for (const e of epochs)
    assert.deepEqual(
      [...e].sort((a, b) => a - b),
      Array.from({ length: 30 }, (_, i) => i),
    );
  assert.notDeepEqual(epochs[0], epochs[1]);
  assert.notDeepEqual(
    epochs[0],
    Array.from({ length: 30 }, (_, i) => i),
  );
  const otherSeed = await collect({ ...options, seed: 43 });
  assert.notDeepEqual(otherSeed, run1);
  // dropRemainder (the default) drops only the last partial batch of each epoch.
  const dropped = await collect({ ...options, batchSize: 4, dropRemainder: true });
  assert.deepEqual(
    dropped.map((b) => b.length),
    new Array(21).fill(4),
  );
});

test("record counts come from file names, or from the files when names do not say", async () => {
  const ds = await openDataset({ files: shards.dir, maxLength: L, batchSize: 4 });
  assert.equal(ds.numRecords, 30);
  assert.equal(ds.batchesPerEpoch, 7);
  const unnamed = await writeShards([4, 6], (i) => `part-${i}.tfrecord`);
  assert.equal((await openDataset({ files: unnamed.dir, maxLength: L, batchSize: 4 })).numRecords, 10);
});

test("processes read disjoint shares of the files that cover them all", async () => {
  const shares = await Promise.all(
    [0, 1].map(async (processIndex) =>
      (
        await collect({ files: shards.dir, maxLength: L, batchSize: 1, seed: 3, processIndex, processCount: 2, dropRemainder: false })
      ).flat(),
    ),
  );
  assert.deepEqual(
    [...shares[0]!, ...shares[1]!].sort((a, b) => a - b),
    Array.from({ length: 30 }, (_, i) => i),
  );
  await assert.rejects(
    openDataset({ files: shards.dir, maxLength: L, batchSize: 1, processIndex: 0, processCount: 6 }),
    /5 files cannot be shared among 6 processes/,
  );
});

test("a saved state resumes exactly, within and across epochs, with masking", async () => {
  const options: DatasetOptions = { files: shards.dir, maxLength: L, batchSize: 4, seed: 9, shuffleBuffer: 8, epochs: 3, cycleLength: 3 };
  const mask = maskingMap({ maskTokenId: 1, vocabSize: 400, specialIds: [0], seed: 5, mlmProbability: 0.5 });
  const ds = (await openDataset(options)).map(mask);
  const all: string[] = [];
  for await (const b of ds) all.push(JSON.stringify([[...b.inputIds], [...b.labels]]));
  assert.equal(all.length, 21);
  for (const cut of [0, 1, 5, 6, 7, 8, 13, 14, 20, 21]) {
    const first = ds.iterator();
    const seen: string[] = [];
    for (let i = 0; i < cut; i++) {
      const r = await first.next();
      seen.push(JSON.stringify([[...r.value!.inputIds], [...r.value!.labels]]));
    }
    const saved = JSON.parse(JSON.stringify(first.state())) as DatasetState;
    await first.return();
    // A fresh dataset object, as after a restart.
    const resumed = (await openDataset(options)).map(mask).iterator(saved);
    for await (const b of resumed) seen.push(JSON.stringify([[...b.inputIds], [...b.labels]]));
    assert.deepEqual(
      seen,
      all,
      `cut after ${cut} batches (state ${JSON.stringify({ epoch: saved.epoch, batchInEpoch: saved.batchInEpoch })})`,
    );
  }
});

test("a state saved after an epoch's last batch points at the next epoch", async () => {
  const ds = await openDataset({ files: shards.dir, maxLength: L, batchSize: 10, epochs: 2 });
  const it = ds.iterator();
  for (let i = 0; i < 3; i++) await it.next();
  assert.deepEqual({ epoch: it.state().epoch, batchInEpoch: it.state().batchInEpoch }, { epoch: 1, batchInEpoch: 0 });
  await it.return();
});

test("a state only resumes the dataset it came from", async () => {
  const ds = await openDataset({ files: shards.dir, maxLength: L, batchSize: 4, seed: 1 });
  const it = ds.iterator();
  await it.next();
  const state = it.state();
  await it.return();
  const other = await openDataset({ files: shards.dir, maxLength: L, batchSize: 8, seed: 1 });
  assert.throws(() => other.iterator(state), /different batchSize \(saved batchSize=4\)/);
  assert.throws(() => other.iterator({ epoch: 1 } as unknown as DatasetState), /not a saved dataset state/);
});

test("missing files, damaged records and wrong features are reported with file and offset", async () => {
  await assert.rejects(
    openDataset({ files: join(shards.dir, "nothing-*.tfrecord"), maxLength: L, batchSize: 1 }),
    /no TFRecord files found at .*nothing-\*\.tfrecord/,
  );

  const damaged = await writeShards([5]);
  const bytes = readFileSync(damaged.files[0]!);
  const recordBytes = bytes.length / 5;
  bytes[2 * recordBytes + 20]! ^= 0x40; // inside the data of the third record
  writeFileSync(damaged.files[0]!, bytes);
  const delivered: number[] = [];
  await assert.rejects(
    (async () => {
      for await (const b of await openDataset({ files: damaged.dir, maxLength: L, batchSize: 1, shuffle: false }))
        delivered.push(...rowIds(b));
    })(),
    (e: unknown) => e instanceof TFRecordError && e.file === damaged.files[0] && e.offset === 2 * recordBytes,
  );
  assert.deepEqual(delivered, [0, 1], "the batches before the damaged record arrive first");
  const skipped: Error[] = [];
  const rest = await collect({
    files: damaged.dir,
    maxLength: L,
    batchSize: 1,
    shuffle: false,
    ignoreErrors: true,
    onSkip: (e) => skipped.push(e),
  });
  assert.deepEqual(rest.flat(), [0, 1, 3, 4]);
  assert.equal(skipped.length, 1);

  await assert.rejects(
    collect({ files: shards.dir, maxLength: L + 1, batchSize: 1, shuffle: false }),
    (e: unknown) =>
      e instanceof RecordParseError &&
      e.offset === 0 &&
      /" has 8 int64 values, expected 9/.test(e.message) &&
      /dataset-0-7\.tfrecord: record at byte offset 0/.test(e.message),
  );
});

test("prefetch 0 and a large prefetch give the same batches", async () => {
  const base: DatasetOptions = { files: shards.dir, maxLength: L, batchSize: 3, seed: 2, epochs: 2 };
  assert.deepEqual(await collect({ ...base, prefetch: 0 }), await collect({ ...base, prefetch: 16 }));
});
