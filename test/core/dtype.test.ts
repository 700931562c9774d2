// Rounding to bf16 and f16 is one round to nearest even from the double, never through f32 first: the
// reference interpreter rounds with it, and every executor is held to the reference.
import test from "node:test";
import assert from "node:assert/strict";
import { bf16BitsToF32, f16BitsToF32, fromNumbers, roundTo, toBf16Bits, toF16Bits } from "../../src/core/dtype.js";

test("bf16: a double rounds once (no double rounding through f32)", () => {
  assert.equal(roundTo("bf16", 1 + 2 ** -8 + 2 ** -30), 1.0078125);
  assert.equal(roundTo("bf16", -(1 + 2 ** -8 + 2 ** -30)), -1.0078125);
  // Below the smallest normal too: 2^-134 is a tie (to 0), a little above it is not.
  assert.equal(roundTo("bf16", 2 ** -134 + 2 ** -160), 2 ** -133);
  const data = fromNumbers("bf16", [1 + 2 ** -8 + 2 ** -30]) as Uint16Array;
  assert.equal(bf16BitsToF32(data[0]!), 1.0078125);
});

test("bf16: ties to even, subnormals, overflow, NaN, signed zero", () => {
  assert.equal(roundTo("bf16", 1 + 2 ** -8), 1); // tie, 1 is even
  assert.equal(roundTo("bf16", 1 + 3 * 2 ** -8), 1 + 2 ** -6); // tie, 1 + 2^-7 is odd
  assert.equal(roundTo("bf16", 1 + 2 ** -8 - 2 ** -40), 1);
  assert.equal(roundTo("bf16", 2 ** -133), 2 ** -133); // the smallest subnormal
  assert.equal(roundTo("bf16", 2 ** -134), 0); // tie, 0 is even
  assert.equal(roundTo("bf16", 3 * 2 ** -134), 2 ** -132); // tie, rounds to the even 2 · 2^-133
  assert.equal(roundTo("bf16", 5 * 2 ** -135), 2 ** -133);
  assert.equal(roundTo("bf16", 1e-50), 0);
  const max = (2 - 2 ** -7) * 2 ** 127;
  assert.equal(roundTo("bf16", max), max);
  assert.equal(roundTo("bf16", max + 2 ** 118), max);
  assert.equal(roundTo("bf16", max + 2 ** 119), Infinity); // tie between max (odd) and 2^128: ∞
  assert.equal(roundTo("bf16", -1e39), -Infinity);
  assert.equal(roundTo("bf16", Infinity), Infinity);
  assert.ok(Number.isNaN(roundTo("bf16", NaN)));
  assert.equal(toBf16Bits(NaN) & 0x7fc0, 0x7fc0);
  assert.ok(Object.is(roundTo("bf16", -0), -0));
  assert.equal(toBf16Bits(-0), 0x8000);
  assert.equal(toBf16Bits(1), 0x3f80);
  assert.equal(toBf16Bits(-2), 0xc000);
  assert.equal(toBf16Bits(2 ** -133), 0x0001);
});

test("f16: a double rounds once (no double rounding through f32)", () => {
  assert.equal(roundTo("f16", 1 + 2 ** -11 + 2 ** -30), 1 + 2 ** -10);
  assert.equal(roundTo("f16", 2 ** -25 + 2 ** -60), 2 ** -24);
});

test("f16: ties to even, subnormals, overflow, NaN, signed zero", () => {
  assert.equal(roundTo("f16", 1 + 2 ** -11), 1);
  assert.equal(roundTo("f16", 1 + 3 * 2 ** -11), 1 + 2 ** -9);
  assert.equal(roundTo("f16", 2 ** -24), 2 ** -24);
  assert.equal(roundTo("f16", 2 ** -25), 0);
  assert.equal(roundTo("f16", 3 * 2 ** -25), 2 ** -23);
  assert.equal(roundTo("f16", 2 ** -14 - 2 ** -26), 2 ** -14); // rounds up into the normals
  assert.equal(roundTo("f16", 65504), 65504);
  assert.equal(roundTo("f16", 65519.99), 65504);
  assert.equal(roundTo("f16", 65520), Infinity); // tie between 65504 (odd) and 2^16: ∞
  assert.equal(roundTo("f16", -7e4), -Infinity);
  assert.ok(Number.isNaN(roundTo("f16", NaN)));
  assert.equal(toF16Bits(NaN), 0x7e00);
  assert.ok(Object.is(roundTo("f16", -0), -0));
  assert.equal(toF16Bits(-0), 0x8000);
  assert.equal(toF16Bits(1), 0x3c00);
  assert.equal(toF16Bits(-2), 0xc000);
  assert.equal(toF16Bits(65504), 0x7bff);
  assert.equal(toF16Bits(2 ** -24), 0x0001);
  assert.equal(toF16Bits(2 ** -14), 0x0400);
  assert.equal(toF16Bits(-Infinity), 0xfc00);
  // Every f16 value survives the round trip bit for bit.
  for (let h = 0; h < 0x10000; h++) {
    if ((h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0) continue;
    assert.equal(toF16Bits(f16BitsToF32(h)), h);
  }
});

test("bf16: every bf16 value survives the round trip bit for bit", () => {
  for (let b = 0; b < 0x10000; b++) {
    if ((b & 0x7f80) === 0x7f80 && (b & 0x7f) !== 0) continue;
    assert.equal(toBf16Bits(bf16BitsToF32(b)), b);
  }
});
