// The length field of a TFRecord: a record cut short is described with the right byte counts, and a
// length running past the end of the file fails at once instead of buffering the rest of the file (in a
// GZIP stream, whose length is unknown, a length beyond a sane record size does).
import test from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { frameRecords, writeU32 } from "../../src/data/tfrecord/frame.js";
import { maskedCrc32c } from "../../src/data/tfrecord/crc32c.js";
import { MAX_UNBOUNDED_RECORD_BYTES, RecordReader } from "../../src/data/tfrecord/reader.js";
import { TFRecordError } from "../../src/data/tfrecord/errors.js";
import { openRecordReader } from "../../src/data/tfrecord/files.js";
import { storageFor } from "../../src/data/storage/index.js";
import { tempDir } from "../helpers/temp-dir.js";

const dir = tempDir("kiln-tfrecord-length-");

async function firstError(reader: RecordReader): Promise<Error> {
  try {
    while ((await reader.read()) !== null);
  } catch (e) {
    return e as Error;
  }
  return assert.fail("the damaged file was read without an error");
}

test("a record cut short says how many bytes its header announces and how many follow", async () => {
  const file = frameRecords([new Uint8Array(10), new Uint8Array(189)]);
  const path = join(dir, "cut.tfrecord");
  writeFileSync(path, file.subarray(0, file.length - 2));
  const error = await firstError(openRecordReader(path));
  assert.equal(
    error.message.split(": ").slice(2).join(": ").split(". ")[0],
    "truncated record: its header announces 189 data bytes and a 4-byte checksum (193 bytes), but only 191 bytes follow the header",
  );
});

test("a length field far beyond the file's end fails without reading the rest of the file", async () => {
  const good = frameRecords([new Uint8Array(10)]);
  const header = new Uint8Array(12);
  const announced = 2 ** 31 - 2;
  writeU32(header, 0, announced);
  writeU32(header, 8, maskedCrc32c(header, 0, 8)); // a valid checksum: only the file size can tell
  const rest = 32 << 20;
  const path = join(dir, "huge-length.tfrecord");
  writeFileSync(path, Buffer.concat([good, header, Buffer.alloc(rest)]));

  const storage = storageFor(path);
  let pulled = 0;
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of storage.read(path)) {
      pulled += chunk.length;
      yield chunk;
    }
  }
  const reader = new RecordReader(counted(), { file: path, streamLength: () => storage.size(path) });
  const error = await firstError(reader);
  const message =
    `its header announces ${announced} data bytes and a 4-byte checksum (${announced + 4} bytes), ` +
    `but only ${rest} bytes follow the header`;
  assert.ok(error.message.includes(message), error.message);
  assert.ok(pulled <= 2 << 20, `read ${pulled} bytes of a ${rest}-byte tail before failing`);
  // Files opened by name get the bound from their size.
  assert.ok((await firstError(openRecordReader(path))).message.includes(message));
});

/** A file holding one good record, then a header announcing `lo + hi·2^32` bytes under a valid checksum, then `tail` zero bytes. */
function lyingLength(lo: number, hi: number, tail: number): Buffer {
  const header = new Uint8Array(12);
  writeU32(header, 0, lo);
  writeU32(header, 4, hi);
  writeU32(header, 8, maskedCrc32c(header, 0, 8));
  return Buffer.concat([frameRecords([new Uint8Array(10)]), header, Buffer.alloc(tail)]);
}

test("a length field near 2^64 with a valid checksum fails at once, plain and GZIP, with the exact length", async () => {
  const data = lyingLength(0xfffffff0, 0xffffffff, 1 << 20);
  for (const [name, bytes] of [
    ["near-2-64.tfrecord", data],
    ["near-2-64.tfrecord.gz", gzipSync(data)],
  ] as const) {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    const error = await firstError(openRecordReader(path));
    assert.ok(error instanceof TFRecordError, String(error));
    assert.equal(error.offset, 26);
    assert.ok(error.message.includes("record length 18446744073709551600 exceeds the 2147483647-byte limit"), error.message);
  }
});

test("in a GZIP stream, whose length is unknown, a huge length fails before its bytes are buffered", async () => {
  const announced = 2 ** 31 - 2;
  const data = lyingLength(announced, 0, 32 << 20);
  let pulled = 0;
  async function* decompressed(): AsyncGenerator<Uint8Array> {
    for (let at = 0; at < data.length; at += 1 << 16) {
      pulled += Math.min(1 << 16, data.length - at);
      yield data.subarray(at, at + (1 << 16));
    }
  }
  const error = await firstError(new RecordReader(decompressed(), { file: "f.tfrecord.gz", compressed: true }));
  const message =
    `record length ${announced} exceeds the ${MAX_UNBOUNDED_RECORD_BYTES}-byte limit of a record in a GZIP file, ` +
    "whose decompressed length is not known in advance (a length this large means the length field is damaged)";
  assert.ok(error.message.includes(`f.tfrecord.gz: bad TFRecord at byte offset 26 of the decompressed stream: ${message}`), error.message);
  assert.ok(pulled <= 1 << 20, `read ${pulled} decompressed bytes before failing`);
  // The same through a real .tfrecord.gz file.
  const path = join(dir, "huge-length.tfrecord.gz");
  writeFileSync(path, gzipSync(data));
  assert.ok((await firstError(openRecordReader(path))).message.includes(message));
});
