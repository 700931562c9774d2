// Dropout's random stream, pinned to the host hash on every CPU executor: element i (row-major) of a
// draw at offset o is kept when (hash(key, o + i) >> 8) · 2^-24 < f32(1 - rate), and a kept element is
// x · f32(1/(1 - rate)). Compiled, eager, and at a traced offset (a replica's or micro-batch's share).
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { hash32 } from "../../../src/data/random.js";

const KEY = [17, 4242] as const;
const devices = ["ref:0", "cpu:0"].map((id) => k.findDevice(id));

/** The host's answer: kept flags and values (+0 for dropped; the device may give -0 for a negative x). */
function hostDropout(x: Float32Array, rate: number, offset: number): { kept: boolean[]; y: number[] } {
  const threshold = Math.fround(1 - rate);
  const scale = Math.fround(1 / (1 - rate));
  const kept = Array.from(x, (_, i) => (hash32(KEY[0], KEY[1], offset + i) >>> 8) * 2 ** -24 < threshold);
  return { kept, y: Array.from(x, (v, i) => (kept[i] ? Math.fround(v * scale) : 0)) };
}

const x = Float32Array.from({ length: 3 * 5 * 7 }, (_, i) => (i % 11) / 3 - 1.5);

for (const device of devices) {
  test(`dropout on ${device.id} keeps exactly the host hash's elements, scaled by 1/(1-rate)`, () => {
    for (const [rate, offset] of [
      [0.1, 0],
      [0.25, 1000],
      [0.5, 2 ** 32 - 40],
    ] as const) {
      const key = k.array(Uint32Array.from(KEY), { device });
      const xs = k.array(x, { shape: [3, 5, 7], device });
      const f = k.jit((kk: k.Array, v: k.Array, o: k.Array) => k.dropout(kk, v, rate, { offset: o }), {
        name: `dropout_stream_${device.id.replace(":", "_")}`,
        device,
      });
      const traced = f(key, xs, k.array(Uint32Array.of(offset), { shape: [], device })).dataSync() as Float32Array;
      const eager = k.dropout(key, xs, rate, { offset }).dataSync() as Float32Array;
      const want = hostDropout(x, rate, offset);
      for (const [name, got] of [
        ["compiled, traced offset", traced],
        ["eager", eager],
      ] as const)
        got.forEach((v, i) => assert.equal(v + 0, want.y[i], `${name}: rate ${rate}, offset ${offset}, element ${i}`));
      const keptShare = want.kept.filter(Boolean).length / x.length;
      assert.ok(Math.abs(keptShare - (1 - rate)) < 0.15, `kept share ${keptShare} near ${1 - rate}`);
    }
  });

  test(`bernoulli on ${device.id} is the host hash's uniform below p, at any offset`, () => {
    const key = k.array(Uint32Array.from(KEY), { device });
    // 0.5: f32(p)·2^24 a whole number (the boundary draw); 0 and 1 (and beyond): none and all.
    for (const p of [0.3, 0.9, 1 / 3, 0.5, 0, 1, 1.5, -0.2]) {
      const got = k.bernoulli(key, p, [4, 50], 77).dataSync() as Uint8Array;
      got.forEach((v, i) =>
        assert.equal(Boolean(v), (hash32(KEY[0], KEY[1], 77 + i) >>> 8) * 2 ** -24 < Math.fround(p), `p ${p}, element ${i}`),
      );
    }
  });
}

/** The host's bernoulliHalves: row r, element j of rows of length L at an even element offset. */
function hostHalves(p: number, rows: number, L: number, offset: number): boolean[] {
  const N = Math.ceil(p * 2 ** 16);
  return Array.from({ length: rows * L }, (_, i) => {
    const [r, j] = [Math.floor(i / L), i % L];
    const h = hash32(KEY[0], KEY[1], offset / 2 + r * (L / 2) + (j % (L / 2)));
    return (j < L / 2 ? h & 0xffff : h >>> 16) < N;
  });
}

for (const device of devices) {
  test(`bernoulliHalves and dropout's halves on ${device.id}: the host's 16-bit halves; rows at an offset draw as the whole`, () => {
    const key = k.array(Uint32Array.from(KEY), { device });
    for (const p of [0.9, 0.5, 1 / 3]) {
      const whole = k.bernoulliHalves(key, p, 6, 10, 40).dataSync() as Uint8Array;
      const want = hostHalves(p, 6, 10, 40);
      whole.forEach((v, i) => assert.equal(Boolean(v), want[i], `p ${p}, element ${i}`));
      // Rows 2..5 drawn on their own (a replica's share) at the offset of row 2, traced.
      const f = k.jit((kk: k.Array, o: k.Array) => k.bernoulliHalves(kk, p, 4, 10, o), { device });
      const part = f(key, k.array(Uint32Array.of(40 + 2 * 10), { shape: [], device })).dataSync() as Uint8Array;
      assert.deepEqual(Array.from(part), Array.from(whole.slice(20)), `p ${p}: rows 2..5`);
    }
    const even = k.array(x.subarray(0, 96), { shape: [4, 24], device });
    const kept = hostHalves(0.9, 4, 24, 48);
    const scale = Math.fround(1 / 0.9);
    const got = k.dropout(key, even, 0.1, { offset: 48, halves: true }).dataSync() as Float32Array;
    got.forEach((v, i) => assert.equal(v + 0, kept[i] ? Math.fround(x[i]! * scale) : 0, `dropout element ${i}`));
    assert.throws(() => k.bernoulliHalves(key, 0.5, 2, 7), /even row length/);
    assert.throws(() => k.bernoulliHalves(key, 0.5, 2, 8, 3), /even offset/);
  });
}
