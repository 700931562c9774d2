// The E and M steps against brute force: expected counts are marginals over all segmentations.
import test from "node:test";
import assert from "node:assert/strict";
import { addExpectedCountsInLogSpace, digamma, edgeLogProbs, expectedCounts, maximize, UNK_PENALTY } from "../../src/text/train/em.js";
import { Lattices } from "../../src/text/train/lattice.js";
import { PieceTable } from "../../src/text/train/piece-table.js";

// Symbols: 1 = a, 2 = b. Pieces: 0 <unk>, 1 a, 2 b, 3 ab, 4 ba, 5 aba.
const spellings = [[], [1], [2], [1, 2], [2, 1], [1, 2, 1]];
function table(): PieceTable {
  const start = new Int32Array(spellings.length),
    length = new Int32Array(spellings.length);
  const flat: number[] = [];
  spellings.forEach((s, p) => {
    start[p] = flat.length;
    length[p] = s.length;
    flat.push(...s);
  });
  const score = Float64Array.from([0, -1.5, -2, -1.2, -2.5, -1.8]);
  return new PieceTable(Int32Array.from(flat), start, length, 2, score);
}

/** Expected count of each piece in `word`, weighted, by enumerating every segmentation. */
function bruteForce(pieces: PieceTable, word: number[], weight: number): number[] {
  const paths: number[][] = [];
  const walk = (at: number, path: number[]) => {
    if (at === word.length) return void paths.push(path);
    spellings.forEach((s, p) => {
      if (p > 0 && pieces.alive[p] && s.length > 0 && s.every((x, k) => word[at + k] === x)) walk(at + s.length, [...path, p]);
    });
  };
  walk(0, []);
  const prob = paths.map((path) => Math.exp(path.reduce((sum, p) => sum + pieces.score[p], 0)));
  const z = prob.reduce((a, b) => a + b, 0);
  const expected = new Array(spellings.length).fill(0);
  paths.forEach((path, i) => path.forEach((p) => (expected[p] += (weight * prob[i]) / z)));
  return expected;
}

function lattices(pieces: PieceTable, words: number[][], weights: number[]): Lattices {
  const flat = words.flat();
  const start = Int32Array.from([0, ...words.map((_, i) => words.slice(0, i + 1).flat().length)]);
  return Lattices.build(Int32Array.from(flat), start, Float64Array.from(weights), pieces.buildTrie(), pieces);
}

test("expected counts equal the marginals over all segmentations", () => {
  const pieces = table();
  const words = [[1, 2, 1, 2], [2, 1, 2, 1, 1], [1]];
  const weights = [3, 2, 5];
  const { expected } = expectedCounts(lattices(pieces, words, weights), edgeLogProbs(pieces));
  const want = new Array(spellings.length).fill(0);
  words.forEach((w, i) => bruteForce(pieces, w, weights[i]).forEach((x, p) => (want[p] += x)));
  for (let p = 1; p < spellings.length; p++) assert.ok(Math.abs(expected[p] - want[p]) < 1e-12, `piece ${p}: ${expected[p]} vs ${want[p]}`);
});

test("long words, rescaled block by block, give the same counts as the log-space pass", () => {
  const pieces = table();
  const long = Array.from({ length: 300 }, (_, i) => (i % 3 === 2 || i % 7 === 0 ? 2 : 1));
  const lat = lattices(pieces, [long], [2]);
  const logProb = edgeLogProbs(pieces);
  const scaled = expectedCounts(lat, logProb);
  const inLogSpace = new Float64Array(spellings.length);
  const logZ = addExpectedCountsInLogSpace(lat, 0, logProb, inLogSpace);
  for (let p = 1; p < spellings.length; p++) {
    assert.ok(
      Math.abs(scaled.expected[p] - inLogSpace[p]) < 1e-9 * Math.max(1, inLogSpace[p]),
      `piece ${p}: ${scaled.expected[p]} vs ${inLogSpace[p]}`,
    );
  }
  assert.ok(Math.abs(scaled.objective - -logZ) < 1e-9 * Math.abs(logZ));
  // Each position is covered once per segmentation: counts × lengths add up to weight × length.
  const covered = [...scaled.expected].reduce((sum, x, p) => sum + x * spellings[p].length, 0);
  assert.ok(Math.abs(covered - 2 * 300) < 1e-6, `covered ${covered}`);
});

test("a word whose probability is far below float64's range still gets exact counts", () => {
  const pieces = table();
  pieces.score.set([0, -50, -60, -1000, -1000, -1000]);
  const word = Array.from({ length: 400 }, (_, i) => (i % 4 === 3 ? 2 : 1));
  const { expected, objective } = expectedCounts(lattices(pieces, [word], [1]), edgeLogProbs(pieces));
  assert.ok(Math.abs(expected[1] - 300) < 1e-6 && Math.abs(expected[2] - 100) < 1e-6, `${expected[1]} ${expected[2]}`);
  assert.ok(Math.abs(objective - (300 * 50 + 100 * 60)) < 1e-6);
});

test("a piece too improbable for plain products sends the word to the log-space pass", () => {
  const pieces = table();
  pieces.score.set([0, -1, -800, -1.5, -2, -3]);
  const words = [
    [1, 2, 1],
    [2, 1, 2, 1],
  ];
  const { expected } = expectedCounts(lattices(pieces, words, [1, 1]), edgeLogProbs(pieces));
  const want = new Array(spellings.length).fill(0);
  words.forEach((w) => bruteForce(pieces, w, 1).forEach((x, p) => (want[p] += x)));
  for (let p = 1; p < spellings.length; p++) assert.ok(Math.abs(expected[p] - want[p]) < 1e-12, `piece ${p}: ${expected[p]} vs ${want[p]}`);
});

test("a dead character is scored as <unk> and still lets the word through", () => {
  const pieces = table();
  pieces.alive[2] = 0; // b
  pieces.alive[3] = 0; // ab
  const logProb = edgeLogProbs(pieces);
  assert.equal(logProb[2], -2.5 - UNK_PENALTY);
  assert.equal(logProb[0], -2.5 - UNK_PENALTY);
  assert.equal(logProb[3], -Infinity);
  const { expected } = expectedCounts(lattices(pieces, [[1, 2]], [1]), logProb);
  assert.ok(Math.abs(expected[1] + expected[2] - 2) < 1e-12);
});

test("digamma matches known values (to the accuracy of its series)", () => {
  assert.ok(Math.abs(digamma(1) - -0.5772156649015329) < 1e-9);
  assert.ok(Math.abs(digamma(0.5) - -1.9635100260214235) < 1e-9);
  assert.ok(Math.abs(digamma(10) - 2.251752589066721) < 1e-9);
});

test("the M step drops pieces expected under 0.5 times and rescores the rest with digamma", () => {
  const pieces = table();
  maximize(pieces, Float64Array.from([0, 10, 0.4, 3, 0.5, 2]));
  assert.deepEqual([...pieces.alive], [0, 1, 0, 1, 1, 1]);
  const total = digamma(10 + 3 + 0.5 + 2);
  assert.equal(pieces.score[1], digamma(10) - total);
  assert.equal(pieces.score[4], digamma(0.5) - total);
});
