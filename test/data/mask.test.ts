import test from "node:test";
import assert from "node:assert/strict";
import { maskTokens } from "../../src/data/mlm/mask.js";
import { hash32 } from "../../src/data/random.js";
import type { TokenBatch } from "../../src/data/batch.js";

const CLS = 0;
const SEP = 1;
const PAD = 3;
const MASK = 4;
const VOCAB = 8000;
const SPECIALS = [CLS, SEP, 2, PAD, MASK];

/** Rows like real chunks: [CLS] text [SEP] ... with a padded tail on every third row. */
function makeBatch(rows: number, length: number): TokenBatch {
  const inputIds = new Int32Array(rows * length);
  const attentionMask = new Int32Array(rows * length);
  let s = 7;
  for (let r = 0; r < rows; r++) {
    const real = r % 3 === 0 ? length - 1 - (r % (length / 2)) : length;
    for (let p = 0; p < length; p++) {
      const i = r * length + p;
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      if (p >= real) inputIds[i] = PAD;
      else if (p === 0 || p % 40 === 0) inputIds[i] = CLS;
      else if (p % 40 === 39) inputIds[i] = SEP;
      else inputIds[i] = 5 + (s % (VOCAB - 5));
      attentionMask[i] = p < real ? 1 : 0;
    }
  }
  return { inputIds, attentionMask, shape: [rows, length] };
}

const options = { maskTokenId: MASK, vocabSize: VOCAB, specialIds: SPECIALS, seed: 1234 };

test("masking statistics match 15% × (80% [MASK] / 10% random / 10% kept); specials and padding never selected", () => {
  const batch = makeBatch(4096, 128);
  const out = maskTokens(batch, options);
  let eligible = 0;
  let selected = 0;
  let masked = 0;
  let randomized = 0;
  let kept = 0;
  for (let i = 0; i < batch.inputIds.length; i++) {
    const id = batch.inputIds[i]!;
    const isEligible = batch.attentionMask[i] === 1 && !SPECIALS.includes(id);
    if (!isEligible) {
      assert.equal(out.labels[i], -100, `special/padding selected at ${i}`);
      assert.equal(out.inputIds[i], id);
      continue;
    }
    eligible++;
    if (out.labels[i] === -100) {
      assert.equal(out.inputIds[i], id);
      continue;
    }
    selected++;
    assert.equal(out.labels[i], id);
    // A random draw that lands on [MASK] or on the original token (chance 1/8000) is counted with
    // those; the tolerances below are far wider than that.
    if (out.inputIds[i] === MASK) masked++;
    else if (out.inputIds[i] === id) kept++;
    else randomized++;
  }
  assert.ok(eligible > 400_000);
  // Standard errors: selection 0.0005, fractions of the ~75k selected about 0.0015 / 0.0011.
  assert.ok(Math.abs(selected / eligible - 0.15) < 0.003, `selected ${selected / eligible}`);
  assert.ok(Math.abs(masked / selected - 0.8) < 0.008, `masked ${masked / selected}`);
  assert.ok(Math.abs(randomized / selected - 0.1) < 0.006, `random ${randomized / selected}`);
  assert.ok(Math.abs(kept / selected - 0.1) < 0.006, `kept ${kept / selected}`);
});

test("the fractions are configurable", () => {
  const batch = makeBatch(1024, 128);
  const out = maskTokens(batch, { ...options, mlmProbability: 0.3, maskFraction: 0.5, randomFraction: 0.5 });
  let eligible = 0;
  let selected = 0;
  let masked = 0;
  let kept = 0;
  for (let i = 0; i < batch.inputIds.length; i++) {
    const id = batch.inputIds[i]!;
    if (batch.attentionMask[i] === 0 || SPECIALS.includes(id)) continue;
    eligible++;
    if (out.labels[i] === -100) continue;
    selected++;
    if (out.inputIds[i] === MASK) masked++;
    if (out.inputIds[i] === id) kept++;
  }
  assert.ok(Math.abs(selected / eligible - 0.3) < 0.006, `selected ${selected / eligible}`);
  assert.ok(Math.abs(masked / selected - 0.5) < 0.012, `masked ${masked / selected}`);
  assert.ok(kept / selected < 0.002, `kept ${kept / selected}`);
});

test("masking follows the documented counter-based derivation exactly", () => {
  const batch = makeBatch(8, 128);
  const seed = 99;
  const epoch = 3;
  const exampleOffset = 640;
  const out = maskTokens(batch, { ...options, seed, epoch, exampleOffset });
  const epochKey = hash32(seed, 0, epoch);
  for (let r = 0; r < 8; r++) {
    const rowKey = hash32(epochKey, 0, exampleOffset + r);
    for (let p = 0; p < 128; p++) {
      const i = r * 128 + p;
      const id = batch.inputIds[i]!;
      let expectedId = id;
      let expectedLabel = -100;
      const eligible = batch.attentionMask[i] === 1 && !SPECIALS.includes(id);
      if (eligible && hash32(rowKey, 0, p) >>> 8 < Math.ceil(0.15 * 2 ** 24)) {
        expectedLabel = id;
        const action = hash32(rowKey, 65536, p) >>> 8;
        if (action < Math.ceil(0.8 * 2 ** 24)) expectedId = MASK;
        else if (action < Math.ceil(0.9 * 2 ** 24)) {
          const k = hash32(rowKey, 2 * 65536, p) >>> 8;
          // The 32-bit integer form given in the documentation.
          const hi = k >>> 12;
          const lo = k & 0xfff;
          expectedId = (hi * VOCAB + ((lo * VOCAB) >>> 12)) >>> 12;
        }
      }
      assert.equal(out.labels[i], expectedLabel, `row ${r} pos ${p}`);
      assert.equal(out.inputIds[i], expectedId, `row ${r} pos ${p}`);
    }
  }
});

test("masks depend on example index, not on how rows are batched, and are redrawn each epoch", () => {
  const batch = makeBatch(64, 128);
  const whole = maskTokens(batch, options);
  const half = (from: number): TokenBatch => ({
    inputIds: batch.inputIds.slice(from * 128, (from + 32) * 128),
    attentionMask: batch.attentionMask.slice(from * 128, (from + 32) * 128),
    shape: [32, 128],
  });
  const a = maskTokens(half(0), options);
  const b = maskTokens(half(32), { ...options, exampleOffset: 32 });
  assert.deepEqual(whole.inputIds, Int32Array.from([...a.inputIds, ...b.inputIds]));
  assert.deepEqual(whole.labels, Int32Array.from([...a.labels, ...b.labels]));
  assert.deepEqual(maskTokens(batch, options), whole, "same inputs, same masks");
  const nextEpoch = maskTokens(batch, { ...options, epoch: 1 });
  assert.notDeepEqual(nextEpoch.labels, whole.labels);
  const otherSeed = maskTokens(batch, { ...options, seed: 1235 });
  assert.notDeepEqual(otherSeed.labels, whole.labels);
  assert.deepEqual(batch, makeBatch(64, 128), "input batch untouched");
});

test("bad masking options are refused with the option named", () => {
  const batch = makeBatch(2, 8);
  assert.throws(
    () => maskTokens(batch, { ...options, maskFraction: 0.95, randomFraction: 0.1 }),
    /maskFraction \+ randomFraction must be at most 1/,
  );
  assert.throws(() => maskTokens(batch, { ...options, mlmProbability: 1.5 }), /mlmProbability must be in \[0, 1\]/);
  assert.throws(() => maskTokens({ ...batch, shape: [3, 8] }, options), /expected 3×8/);
});
