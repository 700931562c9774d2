// TFRecord shards and tf.train.Example records against the real TensorFlow, both ways: TensorFlow
// reads what `kiln data prepare` writes (plain and GZIP) with the reference pipeline's feature spec,
// and Kiln's reader and dataset read what tf.io.TFRecordWriter writes, damaged files included, naming
// the file and the byte offset. One Python process (test/python/tf_records.py) does TensorFlow's part.
import test from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { pinnedVersion, pythonSkip, runPython } from "../helpers/python.js";
import { decodeExample, type DecodedFeature } from "../../src/data/example/example.js";
import { openEncoder } from "../../src/data/prepare/text-encoder.js";
import { openDataset } from "../../src/data/pipeline/dataset.js";
import { readRecords } from "../../src/data/tfrecord/files.js";
import { TFRecordError } from "../../src/data/tfrecord/errors.js";
import { recordsFromFileName } from "../../src/data/shards.js";

const MAX_LENGTH = 64;
const SHARD_SIZE = 40;
/** Small groups, so that the shards also show the reference grouping (each group's remainder dropped). */
const GROUP_SIZE = 2;
const SPEECHES = 3;

interface Rows {
  input_ids: number[][];
  attention_mask: number[][];
}
interface TfRead extends Rows {
  path: string;
  count: number;
  /** Records whose bytes equal protobuf's deterministic serialization of the same Example. */
  canonical: number;
}
interface TfRow {
  input_ids: number[];
  attention_mask: number[];
  /** Extra features (hex bytes, hex float32 bits, decimal int64). */
  text?: string[];
  score?: string[];
  big?: string[];
  empty?: number[];
  unset?: null;
  "na\u00efve \u00fc"?: string[];
}
interface TfWritten {
  path: string;
  compression: "" | "GZIP";
  rows: TfRow[];
}
interface TfDamaged {
  path: string;
  kind: "corrupted" | "truncated" | "gzip-corrupted" | "gzip-truncated";
  compression: "" | "GZIP";
  /** Where the damaged record starts (damage inside the framed records). */
  record_start?: number;
  /** Record starts and the end of the decompressed data (damage to the GZIP stream itself). */
  boundaries?: number[];
  records_before: number;
  tf_message: string | null;
  tf_offset: number | null;
}
interface TfReport {
  tensorflow: string;
  read: TfRead[];
  written: TfWritten[];
  damaged: TfDamaged[];
}

const kilnMain = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

interface Shared {
  /** Kiln's shards by compression, in name order. */
  shards: { none: string[]; gzip: string[] };
  /** The chunks data prepare should have written, from Kiln's encoder and the reference grouping. */
  expected: number[][];
  tf: TfReport;
}

let shared: Promise<Shared> | undefined;
const setup = () => (shared ??= build());

async function build(): Promise<Shared> {
  const corpus = await makeTestCorpus(SPEECHES);
  const shards = { none: [] as string[], gzip: [] as string[] };
  for (const compression of ["none", "gzip"] as const) {
    const out = join(corpus.dir, `kiln-${compression}`);
    await promisify(execFile)(process.execPath, [
      kilnMain,
      "data",
      "prepare",
      "--tokenizer",
      corpus.tokenizerDir,
      "--input",
      corpus.corpus,
      "--out",
      out,
      "--max-length",
      `${MAX_LENGTH}`,
      "--shard-size",
      `${SHARD_SIZE}`,
      "--group-size",
      `${GROUP_SIZE}`,
      "--compression",
      compression,
      "--quiet",
    ]);
    const dir = join(out, "train");
    shards[compression] = readdirSync(dir)
      .filter((n) => n.includes(".tfrecord"))
      .sort((a, b) => shardIndex(a) - shardIndex(b))
      .map((n) => join(dir, n));
  }
  const lines = readFileSync(corpus.corpus, "utf8").split("\n").slice(0, -1);
  const encoder = await openEncoder(corpus.tokenizerDir);
  const expected: number[][] = [];
  for (let g = 0; g < lines.length; g += GROUP_SIZE) {
    const ids = (await encoder.encodeBatch(lines.slice(g, g + GROUP_SIZE))).flat();
    for (let at = 0; at + MAX_LENGTH <= ids.length; at += MAX_LENGTH) expected.push(ids.slice(at, at + MAX_LENGTH));
  }
  const job = {
    read: [...shards.none.map((path) => ({ path, compression: "" })), ...shards.gzip.map((path) => ({ path, compression: "GZIP" }))],
    max_length: MAX_LENGTH,
    write_dir: join(corpus.dir, "tf-written"),
    seed: 7,
  };
  const tf = runPython<TfReport>("tf_records.py", [], { input: JSON.stringify(job) });
  return { shards, expected, tf };
}

function shardIndex(name: string): number {
  return Number(/^dataset-(\d+)-/.exec(name)![1]);
}

/** What Kiln's own reader finds in a shard: input_ids and attention_mask of every record, as numbers. */
async function kilnRows(path: string): Promise<Rows> {
  const rows: Rows = { input_ids: [], attention_mask: [] };
  for await (const record of readRecords(path)) {
    const f = decodeExample(record);
    rows.input_ids.push(int64s(f.input_ids).map(Number));
    rows.attention_mask.push(int64s(f.attention_mask).map(Number));
  }
  return rows;
}

function int64s(f: DecodedFeature | undefined): bigint[] {
  assert.equal(f?.kind, "int64");
  return [...(f as { values: BigInt64Array }).values];
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

function float32Hex(values: Float32Array): string[] {
  return [...values].map((v) => {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    return b.toString("hex");
  });
}

test(
  "TensorFlow reads every shard kiln data prepare writes, plain and GZIP, with the reference feature spec",
  { skip: pythonSkip },
  async () => {
    const { shards, expected, tf } = await setup();
    assert.equal(tf.tensorflow, pinnedVersion("tensorflow-cpu"));
    assert.ok(shards.none.length >= 3, `a few shards, not ${shards.none.length}`);
    assert.deepEqual(
      shards.gzip.map((p) => p.replace(/.*\//, "")),
      shards.none.map((p) => p.replace(/.*\//, "") + ".gz"),
    );
    const byPath = new Map(tf.read.map((r) => [r.path, r]));
    for (const compression of ["none", "gzip"] as const) {
      const all: Rows = { input_ids: [], attention_mask: [] };
      for (const path of shards[compression]) {
        const read = byPath.get(path)!;
        assert.equal(read.count, recordsFromFileName(path), `${path}: TensorFlow's record count vs the count in the name`);
        assert.equal(read.canonical, read.count, `${path}: records that are protobuf's deterministic serialization`);
        const kiln = await kilnRows(path);
        assert.deepEqual(read.input_ids, kiln.input_ids, `${path}: input_ids, TensorFlow vs Kiln's reader`);
        assert.deepEqual(read.attention_mask, kiln.attention_mask, `${path}: attention_mask, TensorFlow vs Kiln's reader`);
        all.input_ids.push(...read.input_ids);
        all.attention_mask.push(...read.attention_mask);
      }
      assert.equal(all.input_ids.length, expected.length, `${compression}: records in all shards vs chunks of the encoded corpus`);
      assert.deepEqual(all.input_ids, expected, `${compression}: the ids Kiln's encoder gives, grouped and chunked`);
      assert.deepEqual(
        all.attention_mask,
        expected.map((row) => row.map(() => 1)),
      );
    }
  },
);

test(
  "Kiln reads the shards tf.io.TFRecordWriter writes, plain and GZIP, extra features included, one by one and as a directory",
  { skip: pythonSkip },
  async () => {
    const { tf } = await setup();
    assert.equal(tf.written.length, 4);
    for (const { path, rows } of tf.written) {
      // The pipeline: the two features, parsed into rows, other features ignored.
      const ds = await openDataset({ files: path, maxLength: MAX_LENGTH, batchSize: rows.length, shuffle: false, dropRemainder: false });
      assert.equal(ds.numRecords, rows.length, path);
      const batches = [];
      for await (const b of ds) batches.push(b);
      assert.equal(batches.length, 1, path);
      const batch = batches[0]!;
      assert.deepEqual(batch.shape, [rows.length, MAX_LENGTH]);
      assert.deepEqual(
        [...batch.inputIds],
        rows.flatMap((r) => r.input_ids),
        `${path}: input_ids through the dataset`,
      );
      assert.deepEqual(
        [...batch.attentionMask],
        rows.flatMap((r) => r.attention_mask),
        `${path}: attention_mask through the dataset`,
      );

      // The records themselves: every feature TensorFlow wrote, exactly.
      let i = 0;
      for await (const record of readRecords(path)) {
        const row = rows[i++]!;
        const f = decodeExample(record);
        assert.deepEqual(Object.keys(f).sort(), Object.keys(row).sort(), `${path} record ${i - 1}: feature names`);
        assert.deepEqual(int64s(f.input_ids).map(Number), row.input_ids);
        assert.deepEqual(int64s(f.attention_mask).map(Number), row.attention_mask);
        if (row.text) {
          assert.equal(f.text!.kind, "bytes");
          assert.deepEqual((f.text as { values: Uint8Array[] }).values.map(hex), row.text, `${path} record ${i - 1}: bytes list`);
          assert.equal(f.score!.kind, "float");
          assert.deepEqual(float32Hex((f.score as { values: Float32Array }).values), row.score, `${path} record ${i - 1}: float list`);
          assert.deepEqual(int64s(f.big).map(String), row.big, `${path} record ${i - 1}: int64 list`);
          assert.deepEqual(int64s(f.empty), []);
          assert.deepEqual(f.unset, { kind: "none" });
          assert.deepEqual(int64s(f["na\u00efve \u00fc"]).map(String), row["na\u00efve \u00fc"]);
        }
      }
      assert.equal(i, rows.length, `${path}: records`);
    }

    // All of them as one training set: a directory of plain and GZIP shards, shuffled, counted from their names.
    const all = tf.written.flatMap((w) => w.rows.map((r) => [...r.input_ids, ...r.attention_mask]));
    const ds = await openDataset({
      files: dirname(tf.written[0]!.path),
      maxLength: MAX_LENGTH,
      batchSize: 5,
      dropRemainder: false,
      seed: 3,
      shuffleBuffer: 16,
    });
    assert.equal(ds.files.length, 4);
    assert.equal(ds.numRecords, all.length);
    const seen: number[][] = [];
    for await (const b of ds) {
      for (let r = 0; r < b.shape[0]; r++) {
        const row = (a: Int32Array) => [...a.subarray(r * MAX_LENGTH, (r + 1) * MAX_LENGTH)];
        seen.push([...row(b.inputIds), ...row(b.attentionMask)]);
      }
    }
    const sorted = (rows: number[][]) => rows.map((r) => r.join(",")).sort();
    assert.notDeepEqual(seen, all, "shuffled");
    assert.deepEqual(sorted(seen), sorted(all), "every record once, through the shuffled pipeline");
  },
);

test(
  "a damaged TensorFlow-written shard: Kiln names the file and the byte offset, where TensorFlow stops too",
  { skip: pythonSkip },
  async () => {
    const { tf } = await setup();
    assert.equal(tf.damaged.length, 6);
    for (const d of tf.damaged) {
      const what = `${d.path} (${d.kind})`;
      // The damaged copies are made from the plain shard, the GZIP stream damage from the GZIP one.
      const intact = tf.written[d.kind.startsWith("gzip-") ? 1 : 0]!.rows;
      assert.ok(d.tf_message, `${what}: TensorFlow reads it without an error`);
      const read: number[][] = [];
      let error: unknown;
      try {
        for await (const record of readRecords(d.path)) read.push(int64s(decodeExample(record).input_ids).map(Number));
      } catch (e) {
        error = e;
      }
      assert.ok(error instanceof TFRecordError, `${what}: expected a TFRecordError, got ${String(error)}`);
      assert.equal(error.file, d.path);
      const compressed = d.compression === "GZIP" ? " of the decompressed stream" : "";
      assert.ok(
        error.message.startsWith(`${d.path}: bad TFRecord at byte offset ${error.offset}${compressed}: `),
        `${what}: ${error.message}`,
      );
      if (d.record_start !== undefined) {
        // Damage inside a record: TensorFlow names the same record (a bad checksum by where its data starts).
        assert.equal(error.offset, d.record_start, `${what}: ${error.message}`);
        assert.equal(d.tf_offset, d.kind === "corrupted" ? d.record_start + 12 : d.record_start, `${what}: ${d.tf_message}`);
        assert.match(error.message, d.kind === "corrupted" ? /data checksum mismatch/ : /truncated record/);
        assert.equal(read.length, d.records_before, `${what}: records before the damaged one, Kiln vs TensorFlow`);
      } else {
        // Damage to the GZIP stream: Kiln stops at a record boundary, having read exactly the records before it.
        assert.match(error.message, /GZIP/);
        assert.equal(read.length, d.boundaries!.indexOf(error.offset), `${what}: offset ${error.offset} vs records read ${read.length}`);
        if (d.tf_offset !== null) assert.equal(error.offset, d.tf_offset, `${what}: ${d.tf_message}`);
      }
      assert.deepEqual(
        read,
        intact.slice(0, read.length).map((r) => r.input_ids),
        `${what}: the records before the damage`,
      );

      // The dataset reports the same error (while counting the records of a file whose name has no count).
      await assert.rejects(
        async () => {
          for await (const _ of await openDataset({ files: d.path, maxLength: MAX_LENGTH, batchSize: 1, shuffle: false }));
        },
        (e: unknown) => e instanceof TFRecordError && e.file === d.path && e.offset === error.offset,
      );
    }
  },
);
