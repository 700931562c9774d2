import test from "node:test";
import assert from "node:assert/strict";
import { decodeExample, encodeExample } from "../../src/data/example/example.js";
import { FeatureError, FixedInt64Encoder, FixedInt64Parser } from "../../src/data/example/fixed-int64.js";
import { ProtoError } from "../../src/io/protobuf.js";

const hex = (s: string) =>
  Uint8Array.from(
    s
      .trim()
      .split(/\s+/)
      .map((b) => parseInt(b, 16)),
  );

// Hand-assembled from example.proto / feature.proto field numbers (see src/data/example/example.ts).
const EXAMPLE_ABC = hex(`
  0a 2a
    0a 0c  0a 01 61  12 07  1a 05  0a 03  01 ac 02
    0a 0d  0a 01 62  12 08  12 06  0a 04  00 00 c0 3f
    0a 0b  0a 01 63  12 06  0a 04  0a 02  68 69`);

test("encodeExample writes hand-computed bytes (sorted keys, packed lists)", () => {
  const bytes = encodeExample({
    c: { kind: "bytes", values: [new TextEncoder().encode("hi")] },
    a: { kind: "int64", values: [1, 300] },
    b: { kind: "float", values: [1.5] },
  });
  assert.deepEqual(bytes, EXAMPLE_ABC);
});

test("decodeExample reads hand-computed bytes", () => {
  const f = decodeExample(EXAMPLE_ABC);
  assert.deepEqual(f.a, { kind: "int64", values: BigInt64Array.from([1n, 300n]) });
  assert.deepEqual(f.b, { kind: "float", values: Float32Array.from([1.5]) });
  assert.deepEqual(f.c, { kind: "bytes", values: [new TextEncoder().encode("hi")] });
});

test("negative int64 values take ten bytes; empty lists are empty messages", () => {
  const bytes = encodeExample({ n: { kind: "int64", values: [-1] }, e: { kind: "int64", values: [] } });
  assert.deepEqual(
    bytes,
    hex(`0a 1e
           0a 07  0a 01 65  12 02  1a 00
           0a 13  0a 01 6e  12 0e  1a 0c  0a 0a  ff ff ff ff ff ff ff ff ff 01`),
  );
  const f = decodeExample(bytes);
  assert.deepEqual(f.n, { kind: "int64", values: BigInt64Array.from([-1n]) });
  assert.deepEqual(f.e, { kind: "int64", values: new BigInt64Array(0) });
});

test("unpacked int64 and float lists are accepted on read", () => {
  // Example{ features{ "a": Int64List unpacked [1, 300], "b": FloatList unpacked [1.5, -2] } }
  const bytes = hex(`
    0a 25
      0a 0e  0a 01 61  12 09  1a 07  08 01  08 ac 02  08 05
      0a 13  0a 01 62  12 0e  12 0c  0d 00 00 c0 3f  0d 00 00 00 c0  08 07`);
  const f = decodeExample(bytes);
  assert.deepEqual(f.a, { kind: "int64", values: BigInt64Array.from([1n, 300n, 5n]) });
  // A stray varint field inside the float list (field 1, wire type 0) is skipped as unknown.
  assert.deepEqual(f.b, { kind: "float", values: Float32Array.from([1.5, -2]) });
});

test("int64 extremes round-trip", () => {
  const values = [0n, 1n, -1n, 2n ** 31n, -(2n ** 31n) - 1n, 2n ** 63n - 1n, -(2n ** 63n)];
  const f = decodeExample(encodeExample({ x: { kind: "int64", values } }));
  assert.deepEqual(f.x, { kind: "int64", values: BigInt64Array.from(values) });
});

test("malformed examples fail with the byte offset of the problem", () => {
  const truncated = EXAMPLE_ABC.subarray(0, 20);
  assert.throws(
    () => decodeExample(truncated),
    (e: unknown) => e instanceof ProtoError && /byte 1 of the record: field length 42 runs past/.test(e.message),
  );
});

function randomRows(seed: number, rows: number, length: number, lo: number, hi: number): Int32Array {
  let s = seed;
  return Int32Array.from({ length: rows * length }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return lo + Math.floor((s / 2 ** 32) * (hi - lo));
  });
}

test("the fixed-length fast encoder writes exactly what encodeExample writes", () => {
  const specs = [
    { name: "input_ids", length: 16 },
    { name: "attention_mask", length: 16 },
  ];
  const enc = new FixedInt64Encoder(specs);
  const ids = randomRows(1, 50, 16, -(2 ** 31), 2 ** 31 - 1);
  ids.set([0, 127, 128, 16383, 16384, 2 ** 21 - 1, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 31 - 1, -1, -(2 ** 31)], 0);
  const mask = randomRows(2, 50, 16, 0, 2);
  for (let row = 0; row < 50; row++) {
    const o = row * 16;
    const expected = encodeExample({
      input_ids: { kind: "int64", values: ids.subarray(o, o + 16) },
      attention_mask: { kind: "int64", values: mask.subarray(o, o + 16) },
    });
    assert.deepEqual(enc.encode([ids, mask], o), expected, `row ${row}`);
  }
});

test("the fixed-length parser reads rows, skips other features, and accepts unpacked lists", () => {
  const specs = [
    { name: "input_ids", length: 4 },
    { name: "attention_mask", length: 4 },
  ];
  const parser = new FixedInt64Parser(specs);
  const ids = new Int32Array(8);
  const mask = new Int32Array(8);
  const rec = encodeExample({
    input_ids: { kind: "int64", values: [5, 300, -7, 2 ** 31 - 1] },
    attention_mask: { kind: "int64", values: [1, 1, 1, 0] },
    extra: { kind: "bytes", values: [new Uint8Array(3)] },
  });
  parser.parse(rec, [ids, mask], 1);
  assert.deepEqual([...ids], [0, 0, 0, 0, 5, 300, -7, 2 ** 31 - 1]);
  assert.deepEqual([...mask], [0, 0, 0, 0, 1, 1, 1, 0]);

  // attention_mask (empty) first, then input_ids as an unpacked list [9].
  const name = (n: string) => [...n].map((c) => c.charCodeAt(0).toString(16)).join(" ");
  const unpacked = hex(`
    0a 29
      0a 14  0a 0e ${name("attention_mask")}  12 02  1a 00
      0a 11  0a 09 ${name("input_ids")}  12 04  1a 02  08 09`);
  const p2 = new FixedInt64Parser([
    { name: "input_ids", length: 1 },
    { name: "attention_mask", length: 0 },
  ]);
  const one = new Int32Array(1);
  p2.parse(unpacked, [one, new Int32Array(0)], 0);
  assert.equal(one[0], 9);
});

test("the fixed-length parser reports wrong lengths, missing features, and values beyond int32", () => {
  const parser = new FixedInt64Parser([{ name: "input_ids", length: 3 }]);
  const out = new Int32Array(3);
  assert.throws(
    () => parser.parse(encodeExample({ input_ids: { kind: "int64", values: [1, 2] } }), [out], 0),
    (e: unknown) => e instanceof FeatureError && /has 2 int64 values, expected 3/.test(e.message),
  );
  assert.throws(
    () => parser.parse(encodeExample({ other: { kind: "int64", values: [1, 2, 3] } }), [out], 0),
    /record has no feature "input_ids"/,
  );
  assert.throws(
    () => parser.parse(encodeExample({ input_ids: { kind: "int64", values: [1n, 2n ** 31n, 3n] } }), [out], 0),
    /int64 value 2147483648 does not fit in int32/,
  );
  assert.throws(
    () => parser.parse(encodeExample({ input_ids: { kind: "float", values: [1, 2, 3] } }), [out], 0),
    /is a float_list, expected an int64_list/,
  );
  assert.throws(() => parser.parse(Uint8Array.of(0x0a, 0x05, 0x0a), [out], 0), ProtoError);
});

test("the fixed-length parser round-trips int32 values of every varint size, at every position", () => {
  const specs = [
    { name: "input_ids", length: 64 },
    { name: "attention_mask", length: 3 },
  ];
  const parser = new FixedInt64Parser(specs);
  const enc = new FixedInt64Encoder(specs);
  const edges = [0, 1, 127, 128, 16383, 16384, 2 ** 21 - 1, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 31 - 1, -1, -(2 ** 31)];
  for (let trial = 0; trial < 200; trial++) {
    const ids = randomRows(trial + 10, 1, 64, -(2 ** 31), 2 ** 31 - 1).map((v, i) =>
      (i + trial) % 3 === 0 ? edges[(i * 7 + trial) % edges.length]! : v,
    );
    const mask = Int32Array.of(1, 0, edges[trial % edges.length]!);
    const outIds = new Int32Array(64);
    const outMask = new Int32Array(3);
    parser.parse(enc.encode([ids, mask]), [outIds, outMask], 0);
    assert.deepEqual(outIds, ids);
    assert.deepEqual(outMask, mask);
  }
});
