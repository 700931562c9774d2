// The counter-based PRNG (written in u32 primitives) gives the reference interpreter's bits on ONNX
// Runtime, compiled and eager: dropout masks are identical across executors.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { hash32 } from "../../../src/data/random.js";

const cpu = k.findDevice("cpu:0"),
  ref = k.findDevice("ref:0");

function draws(device: k.Device) {
  const f = k.jit(
    (key: k.Array, x: k.Array) => {
      const [a, b] = k.splitKey(k.foldIn(key, 12345), 2) as [k.Array, k.Array];
      return [
        k.randomBits(a, [3, 1000]),
        k.uniform(b, [777]),
        k.bernoulli(a, 0.3, [500]),
        k.dropout(b, x, 0.25),
        k.randint(a, [64], -5, 9),
      ];
    },
    { name: `draws_${device.id}`, device },
  );
  const x = k.array(
    Float32Array.from({ length: 2048 }, (_, i) => i / 7 - 100),
    { device },
  );
  return (f(k.randomKey(2 ** 40 + 99), x) as k.Array[]).map((a) => Array.from(a.dataSync() as ArrayLike<number>));
}

test("random bits, uniforms, Bernoulli draws, dropout and randint are bit-identical to the reference", () => {
  const want = draws(ref),
    got = draws(cpu);
  want.forEach((w, i) => assert.deepEqual(got[i], w, `draw ${i}`));
});

test("eager random bits on the CPU device equal the host hash", () => {
  const bits = k.randomBits(k.array(Uint32Array.of(17, 4242), { device: cpu }), [257]).dataSync() as Uint32Array;
  bits.forEach((b, i) => assert.equal(b, hash32(17, 4242, i), `element ${i}`));
});
