import test from "node:test";
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepareClassificationDataset } from "../../src/data/classification/prepare.js";
import { decodeClassificationRecord } from "../../src/data/classification/record-layout.js";
import { openClassificationDataset, type ClassificationDatasetOptions } from "../../src/data/pipeline/classification-dataset.js";
import type { ClassificationBatch } from "../../src/data/pipeline/length-bucket-stream.js";
import { readRecords } from "../../src/data/tfrecord/files.js";
import { OptionError } from "../../src/core/option-error.js";
import { IGNORE_LABEL } from "../../src/data/batch.js";
import { loadTokenizer } from "../../src/text/index.js";
import { makeTestCorpus, sentenceCorpus, sotuSlice } from "../helpers/sotu-slice.js";
import { fixture } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/temp-dir.js";

// Sentences of a few speeches: lengths from a handful of tokens to past maxLength.
const corpus = await makeTestCorpus(2, 500);
const tokenizer = await loadTokenizer(corpus.tokenizerDir);
const work = tempDir("kiln-classification-stream-");
const sentences = sentenceCorpus(sotuSlice(8).lines).trim().split("\n").slice(0, 300);
const input = join(work, "sentences.jsonl");
writeFileSync(input, sentences.map((text, i) => JSON.stringify({ text, label: ["a", "b", "c"][i % 3] })).join("\n") + "\n");
const MAX_LENGTH = 64;
const prepared = await prepareClassificationDataset({
  input,
  textColumn: "text",
  labelColumn: "label",
  tokenizer: corpus.tokenizerDir,
  out: join(work, "out"),
  maxLength: MAX_LENGTH,
  padToMultipleOf: 16,
  shardSize: 40,
});

/** Each stored record as a string key (label and ids), in file order. */
async function storedKeys(): Promise<string[]> {
  const index = (n: string) => Number(/^dataset-(\d+)-/.exec(n)![1]);
  const shards = readdirSync(prepared.dir)
    .filter((n) => n.endsWith(".tfrecord"))
    .sort((a, b) => index(a) - index(b));
  const keys: string[] = [];
  for (const shard of shards)
    for await (const bytes of readRecords(join(prepared.dir, shard))) {
      const r = decodeClassificationRecord(bytes);
      keys.push(`${r.label}:${r.inputIds.join(",")}`);
    }
  return keys;
}

/** The keys, counted. */
function counted(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts;
}

/** The real rows of a batch as record keys, checking the padding around them. */
function rowsOf(batch: ClassificationBatch): string[] {
  const [B, L] = batch.shape;
  const keys: string[] = [];
  for (let row = 0; row < B; row++) {
    const ids = batch.inputIds.subarray(row * L, (row + 1) * L);
    const mask = batch.attentionMask.subarray(row * L, (row + 1) * L);
    const n = mask.reduce((a, b) => a + b, 0);
    // The mask is ones then zeros; padding positions hold the pad id; token types are 0 (single texts).
    assert.deepEqual([...mask], [...new Array(n).fill(1), ...new Array(L - n).fill(0)]);
    assert.ok(ids.subarray(n).every((id) => id === tokenizer.padId));
    assert.ok(batch.tokenTypeIds.subarray(row * L, (row + 1) * L).every((t) => t === 0));
    if (row >= batch.rows) {
      assert.equal(n, 0, "padding rows are all padding");
      assert.equal(batch.labels[row], IGNORE_LABEL);
      continue;
    }
    // A record is in the bucket of its padded length: longer than the next shorter bucket.
    assert.ok(n > L - 16 && n <= L, `a record of ${n} tokens in a batch of length ${L}`);
    keys.push(`${batch.labels[row]}:${ids.subarray(0, n).join(",")}`);
  }
  return keys;
}

async function epochs(options: Partial<ClassificationDatasetOptions> = {}): Promise<ClassificationBatch[]> {
  const ds = await openClassificationDataset({ files: prepared.dir, batchSize: 8, ...options });
  const batches: ClassificationBatch[] = [];
  for await (const b of ds) batches.push(b);
  return batches;
}

test("the prepared data spans several padded lengths and some records were cut", () => {
  assert.equal(prepared.records, 300);
  assert.ok(Object.keys(prepared.paddedLengths).length >= 3, JSON.stringify(prepared.paddedLengths));
  assert.ok(prepared.truncated > 0);
  assert.equal(prepared.lengths.max, MAX_LENGTH);
  assert.equal(prepared.paddedLengthBound, 4);
});

test("every record is in exactly one batch per epoch, padded to a multiple of padToMultipleOf; the shapes are bounded", async () => {
  const ds = await openClassificationDataset({ files: prepared.dir, batchSize: 8, epochs: 2, seed: 3 });
  assert.equal(ds.numRecords, 300);
  assert.equal(ds.padToMultipleOf, 16, "the default is the value prepare used");
  assert.deepEqual(ds.paddedLengths, [16, 32, 48, 64]);
  assert.deepEqual(ds.labels, ["a", "b", "c"]);
  const want = counted(await storedKeys());
  const byEpoch = [new Map<string, number>(), new Map<string, number>()];
  const shapes = new Set<string>();
  const orders: string[][] = [[], []];
  for await (const batch of ds) {
    shapes.add(batch.shape.join("x"));
    assert.equal(batch.shape[0], 8);
    assert.ok(ds.paddedLengths.includes(batch.shape[1]));
    for (const key of rowsOf(batch)) {
      byEpoch[batch.epoch]!.set(key, (byEpoch[batch.epoch]!.get(key) ?? 0) + 1);
      orders[batch.epoch]!.push(key);
    }
  }
  assert.deepEqual(byEpoch[0], want);
  assert.deepEqual(byEpoch[1], want);
  assert.notDeepEqual(orders[0], orders[1], "each epoch has its own order");
  assert.ok(shapes.size <= ds.paddedLengths.length && shapes.size >= 3, [...shapes].join(" "));
  // Only the last batch of each bucket in an epoch may be partial.
  assert.ok((await epochs({ seed: 3 })).filter((b) => b.rows < 8).length <= ds.paddedLengths.length);
});

test("batches are deterministic for a seed and differ between seeds; without shuffle, records come in file order per bucket", async () => {
  const key = (batches: ClassificationBatch[]) => batches.map((b) => `${b.shape[1]}|${b.labels.join(",")}|${b.inputIds.join(",")}`);
  const a = await epochs({ seed: 7 });
  const b = await epochs({ seed: 7 });
  const c = await epochs({ seed: 8 });
  assert.deepEqual(key(a), key(b));
  assert.notDeepEqual(key(a), key(c));
  const ordered = await epochs({ shuffle: false });
  // Unshuffled, the first record lands in the first batch of its bucket, and buckets fill in file order.
  const firstKeys = ordered.flatMap(rowsOf);
  const inFileOrder = await storedKeys();
  const bucketOf = (k: string) => Math.ceil(k.split(":")[1]!.split(",").length / 16);
  for (let bucket = 1; bucket <= 4; bucket++)
    assert.deepEqual(
      firstKeys.filter((k) => bucketOf(k) === bucket),
      inFileOrder.filter((k) => bucketOf(k) === bucket),
    );
});

test("a smaller padToMultipleOf gives more, tighter shapes; wrong settings are OptionErrors", async () => {
  const fine = await openClassificationDataset({ files: prepared.dir, batchSize: 4, padToMultipleOf: 8 });
  assert.equal(fine.paddedLengths.length, 8);
  const lengths = new Set<number>();
  let padding = 0;
  for await (const b of fine) {
    lengths.add(b.shape[1]);
    padding += b.attentionMask.length - b.attentionMask.reduce((x, y) => x + y, 0);
  }
  assert.ok(lengths.size <= 8 && lengths.size > 3);
  let coarsePadding = 0;
  for await (const b of await openClassificationDataset({ files: prepared.dir, batchSize: 4, padToMultipleOf: 64 }))
    coarsePadding += b.attentionMask.length - b.attentionMask.reduce((x, y) => x + y, 0);
  assert.ok(padding < coarsePadding / 2, `${padding} padding tokens at 8, ${coarsePadding} at 64`);

  const option = (name: string) => (e: Error) => e instanceof OptionError && e.option === name;
  await assert.rejects(openClassificationDataset({ files: prepared.dir } as never), option("batchSize"));
  await assert.rejects(openClassificationDataset({ files: prepared.dir, batchSize: 0 }), option("batchSize"));
  await assert.rejects(openClassificationDataset({ files: prepared.dir, batchSize: 2, padToMultipleOf: 2.5 }), option("padToMultipleOf"));
  await assert.rejects(openClassificationDataset({ files: prepared.dir, batchSize: 2, shufle: true } as never), option("shufle"));
  const lm = join(work, "lm");
  const txt = join(work, "lines.txt");
  writeFileSync(txt, sentences.slice(0, 20).join("\n") + "\n");
  const { prepareDataset } = await import("../../src/data/prepare/prepare.js");
  await prepareDataset({ tokenizer: corpus.tokenizerDir, inputs: [txt], out: lm, maxLength: 16, progress: null, workers: 1 });
  await assert.rejects(
    openClassificationDataset({ files: join(lm, "train"), batchSize: 2 }),
    (e: Error) => option("files")(e) && /prepared for language modelling/.test(e.message),
  );
});

test("text pairs: a batch row's token types are the record's, zero over the padding", async () => {
  const pairs = await prepareClassificationDataset({
    input: fixture("classification/reviews.parquet"),
    textColumn: "review",
    textPairColumn: "answer",
    labelColumn: "sentiment",
    tokenizer: corpus.tokenizerDir,
    out: join(work, "pairs"),
    maxLength: 24,
    padToMultipleOf: 8,
  });
  const stored = new Map<string, string>();
  for (const shard of readdirSync(pairs.dir).filter((n) => n.endsWith(".tfrecord")))
    for await (const bytes of readRecords(join(pairs.dir, shard))) {
      const r = decodeClassificationRecord(bytes);
      stored.set(r.inputIds.join(","), r.tokenTypeIds!.join(","));
    }
  const ds = await openClassificationDataset({ files: pairs.dir, batchSize: 5, seed: 2 });
  assert.equal(ds.pairs, true);
  let rows = 0;
  for await (const b of ds) {
    const L = b.shape[1];
    for (let row = 0; row < b.rows; row++, rows++) {
      const n = b.attentionMask.subarray(row * L, (row + 1) * L).reduce((x, y) => x + y, 0);
      const types = b.tokenTypeIds.subarray(row * L, (row + 1) * L);
      assert.equal(stored.get(b.inputIds.subarray(row * L, row * L + n).join(",")), types.subarray(0, n).join(","));
      assert.ok(types.subarray(n).every((t) => t === 0));
      assert.ok(types.includes(1));
    }
  }
  assert.equal(rows, 41);
});

test("splits read together must agree on labels, maxLength and tokenizer; padToMultipleOf may differ", async () => {
  const half = join(work, "half.jsonl");
  writeFileSync(
    half,
    sentences
      .slice(0, 30)
      .map((text, i) => JSON.stringify({ text, label: ["a", "b", "c"][i % 3] }))
      .join("\n") + "\n",
  );
  const common = { input: half, textColumn: "text", labelColumn: "label", tokenizer: corpus.tokenizerDir, maxLength: MAX_LENGTH };
  const other = await prepareClassificationDataset({ ...common, out: join(work, "out"), split: "validation", padToMultipleOf: 8 });
  const both = await openClassificationDataset({ files: [prepared.dir, other.dir], batchSize: 8 });
  assert.equal(both.numRecords, 330);
  assert.equal(both.padToMultipleOf, 16, "the first directory's");
  const relabelled = join(work, "relabelled.jsonl");
  writeFileSync(
    relabelled,
    sentences
      .slice(0, 10)
      .map((text, i) => JSON.stringify({ text, label: ["a", "c"][i % 2] }))
      .join("\n") + "\n",
  );
  const twoLabels = await prepareClassificationDataset({ ...common, input: relabelled, out: join(work, "relabelled") });
  await assert.rejects(
    openClassificationDataset({ files: [prepared.dir, twoLabels.dir], batchSize: 8 }),
    (e: Error) => e instanceof OptionError && e.option === "files" && /other settings or labels/.test(e.message),
  );
});
