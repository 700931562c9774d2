import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { frameRecord, frameRecords } from "../../src/data/tfrecord/frame.js";
import { RecordReader } from "../../src/data/tfrecord/reader.js";
import { TFRecordError } from "../../src/data/tfrecord/errors.js";
import { TFRecordWriter, countRecords, readRecords, writeRecords } from "../../src/data/tfrecord/files.js";
import { tempDir } from "../helpers/temp-dir.js";

const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));

// Two records of a TensorFlow event file (an empty `brain.Event:2` event and a scalar summary), as
// TensorFlow wrote them: the bytes a correct writer must reproduce exactly.
const TF_RECORD_1_DATA = bytes([0x09, 0x00, 0x00, 0x80, 0x38, 0x99, 0xd6, 0xd7, 0x41, 0x1a, 0x0d], "brain.Event:2");
const TF_RECORD_2_DATA = bytes(
  [0x09, 0xc4, 0x05, 0xb7, 0x3d, 0x99, 0xd6, 0xd7, 0x41, 0x10, 0x4d, 0x2a, 0x25, 0x0a, 0x23, 0x0a, 0x08],
  "accuracy",
  [0x42, 0x0a, 0x08, 0x01, 0x12, 0x00, 0x22, 0x04, 0xa4, 0x70, 0x7d, 0x3f, 0x4a, 0x0b, 0x0a, 0x09, 0x0a, 0x07],
  "scalars",
);
const TF_FILE = bytes(
  [0x18, 0, 0, 0, 0, 0, 0, 0, 0xa3, 0x7f, 0x4b, 0x22],
  [...TF_RECORD_1_DATA],
  [0x12, 0x4b, 0x36, 0xab],
  [0x32, 0, 0, 0, 0, 0, 0, 0, 0x24, 0x19, 0x56, 0xec],
  [...TF_RECORD_2_DATA],
  [0xa5, 0x5b, 0x64, 0x33],
);

async function* chunked(data: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function readAllRecords(data: Uint8Array, chunk = 7, file = "mem.tfrecord"): Promise<Uint8Array[]> {
  const reader = new RecordReader(chunked(data, chunk), { file });
  const out: Uint8Array[] = [];
  for (let r = await reader.read(); r !== null; r = await reader.read()) out.push(r.slice());
  return out;
}

test("framing reproduces a TensorFlow-written file byte for byte", () => {
  assert.deepEqual(frameRecords([TF_RECORD_1_DATA, TF_RECORD_2_DATA]), TF_FILE);
});

test("framing of an empty record is the header of length 0 and two checksums", () => {
  // masked CRC-32C of eight zero bytes, and of no bytes (maskCrc(0) = 0xa282ead8)
  const framed = frameRecord(new Uint8Array(0));
  assert.equal(framed.length, 16);
  assert.deepEqual([...framed.subarray(0, 8)], [0, 0, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual([...framed.subarray(12)], [0xd8, 0xea, 0x82, 0xa2]);
});

test("reader parses a TensorFlow-written file whatever the chunking", async () => {
  for (const chunk of [1, 3, 12, 13, 50, 1000]) {
    assert.deepEqual(await readAllRecords(TF_FILE, chunk), [TF_RECORD_1_DATA, TF_RECORD_2_DATA], `chunk ${chunk}`);
  }
});

test("records written then read are identical (plain and GZIP, on disk)", async () => {
  const dir = tempDir("kiln-tfrecord-");
  const records = Array.from({ length: 300 }, (_, i) => Uint8Array.from({ length: (i * 37) % 2500 }, (_, j) => (i + j * 13) & 0xff));
  for (const name of ["a.tfrecord", "a.tfrecord.gz"]) {
    const path = join(dir, name);
    assert.equal(await writeRecords(path, records), records.length);
    const back: Uint8Array[] = [];
    for await (const r of readRecords(path)) back.push(new Uint8Array(r)); // plain copies: fs hands out Buffers
    assert.deepEqual(back, records);
    assert.equal(await countRecords(path), records.length);
  }
  // The GZIP file is the gzip of the plain framing (what TensorFlow's GZIP option writes).
  const plain = readFileSync(join(dir, "a.tfrecord"));
  assert.ok(readFileSync(join(dir, "a.tfrecord.gz")).length < plain.length);
  writeFileSync(join(dir, "b.tfrecord.gz"), gzipSync(plain));
  assert.equal(await countRecords(join(dir, "b.tfrecord.gz")), records.length);
});

test("an aborted writer leaves nothing under the final name", async () => {
  const dir = tempDir("kiln-tfrecord-");
  const writer = await TFRecordWriter.open(join(dir, "x.tfrecord"));
  await writer.write(new Uint8Array(10));
  await writer.abort();
  assert.deepEqual(readdirSync(dir), []);
});

/** The start offsets of each record in a framed file. */
function recordStarts(records: Uint8Array[]): number[] {
  const starts: number[] = [];
  let at = 0;
  for (const r of records) {
    starts.push(at);
    at += r.length + 16;
  }
  return starts;
}

test("every corrupted byte is detected and reported with file and record offset (random property)", async () => {
  const records = Array.from({ length: 40 }, (_, i) => Uint8Array.from({ length: 1 + ((i * 53) % 300) }, (_, j) => (i * 7 + j) & 0xff));
  const file = frameRecords(records);
  const starts = recordStarts(records);
  let seed = 12345;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let trial = 0; trial < 1000; trial++) {
    const at = Math.floor(rand() * file.length);
    const flip = 1 + Math.floor(rand() * 255);
    const damaged = file.slice();
    damaged[at]! ^= flip;
    const expectedOffset = starts.filter((s) => s <= at).at(-1)!;
    await assert.rejects(readAllRecords(damaged, 1 + Math.floor(rand() * 200), "shard-7.tfrecord"), (e: unknown) => {
      assert.ok(e instanceof TFRecordError, String(e));
      assert.equal(e.file, "shard-7.tfrecord");
      assert.equal(e.offset, expectedOffset, `byte ${at}: ${e.message}`);
      assert.match(e.message, new RegExp(`^shard-7\\.tfrecord: bad TFRecord at byte offset ${expectedOffset}: `));
      return true;
    });
  }
});

test("truncation anywhere is reported with the offset of the cut record", async () => {
  const records = [new Uint8Array(5), new Uint8Array(100), new Uint8Array(3)];
  const file = frameRecords(records);
  const starts = recordStarts(records);
  for (let cut = 1; cut < file.length; cut++) {
    if (starts.includes(cut)) {
      assert.equal((await readAllRecords(file.subarray(0, cut))).length, starts.indexOf(cut));
      continue;
    }
    const expected = starts.filter((s) => s < cut).at(-1)!;
    await assert.rejects(
      readAllRecords(file.subarray(0, cut)),
      (e: unknown) => e instanceof TFRecordError && e.offset === expected && /truncated/.test(e.message),
    );
  }
});

test("a GZIP file cut short or damaged in its compressed bytes is a TFRecordError at the record it cuts", async () => {
  const dir = tempDir("kiln-tfrecord-gz-");
  const records = Array.from({ length: 30 }, (_, i) => Uint8Array.from({ length: 200 + i }, (_, j) => (i * 31 + j * 7) & 0xff));
  const starts = recordStarts(records);
  const gz = gzipSync(frameRecords(records));
  const cases = [
    { name: "cut.tfrecord.gz", data: gz.subarray(0, Math.floor(gz.length / 2)), zlib: /unexpected end of file/ },
    { name: "flipped.tfrecord.gz", data: Uint8Array.from(gz, (b, i) => (i === gz.length - 6 ? b ^ 1 : b)), zlib: /incorrect data check/ },
  ];
  for (const { name, data, zlib } of cases) {
    const path = join(dir, name);
    writeFileSync(path, data);
    let read = 0;
    const error = await (async () => {
      for await (const _ of readRecords(path)) read++;
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof TFRecordError, `${name}: ${String(error)}`);
    assert.equal(error.file, path);
    assert.equal(error.offset, [...starts, frameRecords(records).length][read], `${name}: read ${read} records`);
    assert.match(
      error.message,
      new RegExp(`^${path}: bad TFRecord at byte offset ${error.offset} of the decompressed stream: the GZIP data`),
    );
    assert.match(error.message, zlib);

    const skipped: TFRecordError[] = [];
    let kept = 0;
    for await (const _ of readRecords(path, { ignoreErrors: true, onSkip: (e) => skipped.push(e) })) kept++;
    assert.equal(kept, read, `${name}: records before the damage with ignoreErrors`);
    assert.deepEqual(
      skipped.map((e) => e.offset),
      [error.offset],
    );
  }
});

test("ignoreErrors skips a record with bad data and counts it; a bad length ends the file", async () => {
  const records = [bytes("first"), bytes("second"), bytes("third")];
  const file = frameRecords(records);
  const starts = recordStarts(records);
  const badData = file.slice();
  badData[starts[1]! + 12]! ^= 1;
  const skipped: TFRecordError[] = [];
  const reader = new RecordReader(chunked(badData, 5), { file: "f", ignoreErrors: true, onSkip: (e) => skipped.push(e) });
  const got: string[] = [];
  for (let r = await reader.read(); r !== null; r = await reader.read()) got.push(new TextDecoder().decode(r));
  assert.deepEqual(got, ["first", "third"]);
  assert.equal(reader.skipped, 1);
  assert.equal(skipped[0]!.offset, starts[1]);

  const badLength = file.slice();
  badLength[starts[1]!]! ^= 1;
  const r2 = new RecordReader(chunked(badLength, 5), { file: "f", ignoreErrors: true });
  const got2: Uint8Array[] = [];
  for (let r = await r2.read(); r !== null; r = await r2.read()) got2.push(r);
  assert.equal(got2.length, 1);
  assert.equal(r2.skipped, 1);
});
