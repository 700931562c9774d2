// The one protobuf wire writer and reader (tf.train.Example, TensorBoard events, ONNX models and XLA
// compile options all use it): field encodings against bytes worked out from the wire format.
import test from "node:test";
import assert from "node:assert/strict";
import { ProtoError, ProtoReader, ProtoWriter, WIRE_LEN, WIRE_VARINT } from "../../src/io/protobuf.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex").replace(/(..)/g, "$1 ").trim();

test("integer fields: small, multi-byte, bigint, and negative as ten bytes", () => {
  assert.equal(hex(new ProtoWriter().intField(1, 1).finish()), "08 01");
  assert.equal(hex(new ProtoWriter().intField(1, 300).finish()), "08 ac 02");
  assert.equal(hex(new ProtoWriter().intField(1, -1).finish()), "08 ff ff ff ff ff ff ff ff ff 01");
  assert.equal(hex(new ProtoWriter().intField(1, 2n ** 40n).finish()), "08 80 80 80 80 80 20");
  assert.equal(hex(new ProtoWriter().intField(16, 2).finish()), "80 01 02", "field 16 needs a two-byte tag");
  assert.equal(hex(new ProtoWriter().boolField(4, true).finish()), "20 01");
  assert.equal(hex(new ProtoWriter().packedInts(1, [0, 1, 300, -1]).finish()), "0a 0e 00 01 ac 02 ff ff ff ff ff ff ff ff ff 01");
  assert.throws(() => new ProtoWriter().intField(1, 0.5), RangeError);
});

test("strings, bytes, floats and nested messages", () => {
  assert.equal(hex(new ProtoWriter().stringField(2, "ab").finish()), "12 02 61 62");
  assert.equal(hex(new ProtoWriter().stringField(2, "é").finish()), "12 02 c3 a9");
  const long = "x".repeat(200);
  assert.equal(hex(new ProtoWriter().stringField(1, long).finish()).slice(0, 8), "0a c8 01");
  assert.equal(hex(new ProtoWriter().bytesField(9, Uint8Array.of(1, 2)).finish()), "4a 02 01 02");
  assert.equal(hex(new ProtoWriter().float32Field(2, 1).finish()), "15 00 00 80 3f");
  assert.equal(hex(new ProtoWriter().float64Field(1, 1).finish()), "09 00 00 00 00 00 00 f0 3f");
  // A nested body longer than 127 bytes: its two-byte length prefix is made room for after the fact.
  const w = new ProtoWriter(4);
  w.nested(3, () => w.bytesField(1, new Uint8Array(200).fill(7))).intField(4, 5);
  const bytes = w.finish();
  assert.equal(hex(bytes.subarray(0, 6)), "1a cb 01 0a c8 01");
  assert.equal(hex(bytes.subarray(bytes.length - 2)), "20 05");
  assert.equal(bytes.length, 3 + 203 + 2);
});

test("the reader walks what the writer wrote, and names the message in its errors", () => {
  const w = new ProtoWriter().intField(1, -2).stringField(2, "hi");
  w.nested(3, () => w.intField(1, 7));
  const bytes = w.finish();
  const r = new ProtoReader(bytes, 0, bytes.length);
  assert.equal(r.uvarint(), (1 << 3) | WIRE_VARINT);
  assert.equal(r.int64(), -2n);
  assert.equal(r.uvarint(), (2 << 3) | WIRE_LEN);
  const [s, e] = r.lengthDelimited();
  assert.equal(Buffer.from(bytes.subarray(s, e)).toString(), "hi");
  assert.equal(r.uvarint(), (3 << 3) | WIRE_LEN);
  const [ns, ne] = r.lengthDelimited();
  const inner = r.sub(ns, ne);
  assert.equal(inner.uvarint(), 8);
  assert.equal(inner.int64(), 7n);
  assert.ok(inner.done() && r.done());

  const bad = Uint8Array.of(0x2a, 0x00); // a length of 42 with one byte after it
  assert.throws(
    () => new ProtoReader(bad, 0, bad.length, 0, { message: "Event", unit: "record" }).skip(WIRE_LEN),
    (e: unknown) =>
      e instanceof ProtoError && e.message === "malformed Event at byte 0 of the record: field length 42 runs past the end of the message",
  );
  assert.throws(
    () => new ProtoReader(bad, 0, bad.length).skip(WIRE_LEN),
    /^ProtoError: malformed protocol buffer at byte 0 of the message/,
  );
});
