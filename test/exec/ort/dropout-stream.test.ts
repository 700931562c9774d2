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
