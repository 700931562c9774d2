// The traced MLM masking (inside compiled steps) makes exactly the host function's decisions.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import { maskTokens } from "../../src/data/mlm/mask.js";
import { maskTokensTraced } from "../../src/data/mlm/mask-traced.js";
import { rng } from "../helpers/random.js";

k.setDefaultDevice("ref:0");

test("traced and host masking agree token for token, across seeds, epochs and offsets", () => {
  const r = rng(3);
  const rows = 6,
    length = 40,
    vocab = 5000;
  const ids = new Int32Array(rows * length),
    mask = new Int32Array(rows * length);
  for (let row = 0; row < rows; row++) {
    const len = 10 + Math.floor(r() * 30);
    for (let p = 0; p < length; p++) {
      const i = row * length + p;
      mask[i] = p < len ? 1 : 0;
      ids[i] = p === 0 ? 0 : p === len - 1 ? 1 : p < len ? 5 + Math.floor(r() * (vocab - 5)) : 3;
    }
  }
  const specialIds = [0, 1, 2, 3, 4];
  const f = k.jit(
    (a: k.Array, m: k.Array, epoch: k.Array, offset: k.Array, seed: number) =>
      maskTokensTraced(a, m, epoch, offset, { maskTokenId: 4, vocabSize: vocab, specialIds, seed, mlmProbability: 0.3 }),
    { staticArgs: [4] },
  );
  for (const [seed, epoch, offset] of [
    [0, 0, 0],
    [7, 1, 12],
    [123456789, 5, 4000000],
  ] as const) {
    const host = maskTokens(
      { inputIds: ids, attentionMask: mask, shape: [rows, length] },
      { maskTokenId: 4, vocabSize: vocab, specialIds, seed, epoch, exampleOffset: offset, mlmProbability: 0.3 },
    );
    const out = f(
      k.array(ids, { shape: [rows, length] }),
      k.array(mask, { shape: [rows, length] }),
      k.scalar(epoch, "i32"),
      k.scalar(offset, "i32"),
      seed,
    );
    assert.deepEqual(Array.from(out.inputIds.dataSync() as Int32Array), Array.from(host.inputIds), `ids, seed ${seed}`);
    assert.deepEqual(Array.from(out.labels.dataSync() as Int32Array), Array.from(host.labels), `labels, seed ${seed}`);
    assert.ok(
      host.labels.some((l) => l !== -100),
      "something was selected",
    );
    assert.ok(
      Array.from(host.inputIds).some((v, i) => v !== 4 && v !== ids[i]),
      "some random replacements happened",
    );
  }
});
