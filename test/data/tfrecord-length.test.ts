// The length field of a TFRecord: a record cut short is described with the right byte counts, and a
// length running past the end of the file fails at once instead of buffering the rest of the file.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { frameRecords, writeU32 } from "../../src/data/tfrecord/frame.js";
import { maskedCrc32c } from "../../src/data/tfrecord/crc32c.js";
import { RecordReader } from "../../src/data/tfrecord/reader.js";
import { openRecordReader } from "../../src/data/tfrecord/files.js";
import { storageFor } from "../../src/data/storage/index.js";

const dir = mkdtempSync(join(tmpdir(), "kiln-tfrecord-length-"));
test.after(() => rmSync(dir, { recursive: true, force: true }));

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
  const message = `its header announces ${announced} data bytes and a 4-byte checksum (${announced + 4} bytes), but only ${rest} bytes follow the header`;
  assert.ok(error.message.includes(message), error.message);
  assert.ok(pulled <= 2 << 20, `read ${pulled} bytes of a ${rest}-byte tail before failing`);
  // Files opened by name get the bound from their size.
  assert.ok((await firstError(openRecordReader(path))).message.includes(message));
});
