import test from "node:test";
import assert from "node:assert/strict";
import { crc32c, maskCrc, maskedCrc32c } from "../../src/data/tfrecord/crc32c.js";

const ascii = (s: string) => new TextEncoder().encode(s);

// Bit-at-a-time CRC-32C straight from the definition: an independent check of the sliced tables.
function crc32cBitwise(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

test("CRC-32C matches published check values", () => {
  assert.equal(crc32c(ascii("123456789")), 0xe3069283);
  assert.equal(crc32c(new Uint8Array(0)), 0);
  assert.equal(crc32c(ascii("The quick brown fox jumps over the lazy dog")), 0x22620404);
  // RFC 3720 (iSCSI) appendix B.4.
  assert.equal(crc32c(new Uint8Array(32)), 0x8a9136aa);
  assert.equal(crc32c(new Uint8Array(32).fill(0xff)), 0x62a8ab43);
  assert.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i)), 0x46dd794e);
  assert.equal(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i)), 0x113fdb5c);
});

test("CRC-32C agrees with the bitwise definition for every length and alignment up to 64 bytes", () => {
  const data = Uint8Array.from({ length: 80 }, (_, i) => (i * 151 + 7) & 0xff);
  for (let start = 0; start < 8; start++) {
    for (let len = 0; len <= 64; len++) {
      assert.equal(crc32c(data, 0, start, start + len), crc32cBitwise(data.subarray(start, start + len)), `start ${start} len ${len}`);
    }
  }
});

test("CRC-32C can be continued across pieces", () => {
  const data = ascii("123456789");
  assert.equal(crc32c(data.subarray(4), crc32c(data.subarray(0, 4))), 0xe3069283);
});

test("masked CRC matches a checksum from a TensorFlow-written file", () => {
  // The data checksum of an Event record (file_version "CRC test, one two") in a TensorFlow event file.
  assert.equal(maskedCrc32c(ascii("\x1a\x11CRC test, one two")), 0x5794d08a);
  assert.equal(maskCrc(0), 0xa282ead8);
  assert.equal(maskCrc(0xe3069283), ((((0xe3069283 >>> 15) | (0xe3069283 << 17)) >>> 0) + 0xa282ead8) % 2 ** 32);
});
