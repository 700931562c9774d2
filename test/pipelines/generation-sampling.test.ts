// Sampling as transformers defines it: the warped logits (temperature, top-k, top-p) token for token
// against transformers' own warpers, draws that follow the warped distribution, a seed that fixes
// them, and top-k 1 that is greedy.
import test from "node:test";
import assert from "node:assert/strict";
import { argmaxRow, sampleToken, samplingProblem, samplingUniform, softmax, warpLogits } from "../../src/pipelines/generation/sampling.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { randn, rng } from "../helpers/random.js";

/** Rows of logits: spread-out normals, one with a tie at the top, one with a tie at the k-th value. */
function logitRows(): number[][] {
  const rand = rng(7);
  const rows = Array.from({ length: 4 }, (_, r) => Array.from(randn(rand, 64), (x) => Math.fround(x * (1 + r))));
  const tied = rows[2]!;
  const order = [...tied.keys()].sort((a, b) => tied[b]! - tied[a]!);
  tied[order[5]!] = tied[order[4]!]!; // the 5th and 6th largest equal: top-k 5 keeps both
  return rows;
}

const CASES = [
  { temperature: 1, top_k: 0, top_p: 1 },
  { temperature: 0.7, top_k: 50, top_p: 1 },
  { temperature: 1, top_k: 5, top_p: 1 },
  { temperature: 1.3, top_k: 0, top_p: 0.9 },
  { temperature: 0.5, top_k: 20, top_p: 0.6 },
  { temperature: 1, top_k: 1, top_p: 1 },
  { temperature: 2, top_k: 0, top_p: 0.05 },
];

test("warped logits equal transformers' Temperature, TopK and TopP warpers (removed tokens and values)", { skip: pythonSkip }, () => {
  const rows = logitRows();
  const theirs = runPython<(number | null)[][][]>("hf_logits_warpers.py", [], { input: JSON.stringify({ logits: rows, cases: CASES }) });
  CASES.forEach((c, ci) =>
    rows.forEach((row, r) => {
      const ours = warpLogits(row, { temperature: c.temperature, topK: c.top_k, topP: c.top_p });
      const want = theirs[ci]![r]!;
      const kept = (xs: ArrayLike<number | null>) =>
        Array.from(xs, (v, i) => (v === null || v === -Infinity ? -1 : i)).filter((i) => i >= 0);
      assert.deepEqual(kept(ours), kept(want), `case ${JSON.stringify(c)}, row ${r}: the kept tokens`);
      want.forEach((v, i) => {
        if (v !== null) assert.ok(Math.abs(ours[i]! - v) <= 1e-6 * Math.max(1, Math.abs(v)), `case ${ci} row ${r} token ${i}`);
      });
    }),
  );
  // The tie at the k-th value keeps six tokens for top-k 5, as transformers' `scores < kth` does.
  assert.equal(Array.from(warpLogits(rows[2]!, { topK: 5 })).filter((v) => v > -Infinity).length, 6);
});

test("draws follow the warped distribution; a seed fixes them, and another seed changes them", () => {
  const logits = [2, 1, 0.5, -1, -3];
  const probs = softmax(warpLogits(logits, { topK: 0, topP: 1 }));
  const n = 20000;
  const counts = new Array<number>(logits.length).fill(0);
  for (let step = 0; step < n; step++) counts[sampleToken(logits, { topK: 0 }, samplingUniform(3, 0, step))]!++;
  counts.forEach((c, i) => assert.ok(Math.abs(c / n - probs[i]!) < 0.015, `token ${i}: ${c / n} drawn, ${probs[i]} expected`));
  const draws = (seed: number, row: number) =>
    Array.from({ length: 40 }, (_, s) => sampleToken(logits, { topK: 0 }, samplingUniform(seed, row, s)));
  assert.deepEqual(draws(11, 0), draws(11, 0));
  assert.notDeepEqual(draws(11, 0), draws(12, 0));
  assert.notDeepEqual(draws(11, 0), draws(11, 1), "each row has its own stream");
  // Seeds above 2^32 use their high word.
  assert.notEqual(samplingUniform(2 ** 32 + 5, 0, 0), samplingUniform(5, 0, 0));
});

test("top-k 1 is greedy (first maximum), and top-p keeps the most likely token however small p is", () => {
  for (const row of logitRows()) {
    for (let s = 0; s < 10; s++) assert.equal(sampleToken(row, { topK: 1 }, samplingUniform(1, 0, s)), argmaxRow(row));
    const kept = Array.from(warpLogits(row, { topK: 0, topP: 1e-6 })).flatMap((v, i) => (v > -Infinity ? [i] : []));
    assert.deepEqual(kept, [argmaxRow(row)]);
  }
});

test("bad sampling options are named with their valid range", () => {
  assert.equal(samplingProblem({ temperature: 1, topK: 50, topP: 1 }), undefined);
  assert.match(samplingProblem({ temperature: 0 })!, /^temperature must be a number > 0, got 0 .*greedy/);
  assert.match(samplingProblem({ topK: -1 })!, /^topK must be an integer ≥ 0 .*got -1/);
  assert.match(samplingProblem({ topK: 2.5 })!, /^topK must be an integer/);
  assert.match(samplingProblem({ topP: 0 })!, /^topP must be a number in \(0, 1\] .*got 0/);
  assert.match(samplingProblem({ topP: 1.5 })!, /got 1.5/);
  assert.throws(() => warpLogits([1, 2], { temperature: -1 }), /sampling: temperature must be/);
});
