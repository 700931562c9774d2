// SA-IS and Kasai's LCP against the obvious quadratic constructions.
import test from "node:test";
import assert from "node:assert/strict";
import { lcpArray, suffixArray } from "../../src/text/train/suffix-array.js";

function naiveSuffixArray(text: ArrayLike<number>): number[] {
  const compare = (a: number, b: number): number => {
    for (let k = 0; ; k++) {
      if (a + k === text.length) return -1;
      if (b + k === text.length) return 1;
      if (text[a + k] !== text[b + k]) return text[a + k] - text[b + k];
    }
  };
  return Array.from({ length: text.length }, (_, i) => i).sort(compare);
}

function naiveLcp(text: ArrayLike<number>, sa: ArrayLike<number>): number[] {
  return Array.from({ length: text.length }, (_, i) => {
    if (i === 0) return 0;
    let h = 0;
    while (sa[i] + h < text.length && sa[i - 1] + h < text.length && text[sa[i] + h] === text[sa[i - 1] + h]) h++;
    return h;
  });
}

/** A deterministic pseudo-random text over [1, alphabet) ending in 0. */
function randomText(length: number, alphabet: number, seed: number): Int32Array<ArrayBuffer> {
  let state = seed;
  const text = new Int32Array(length + 1);
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    text[i] = 1 + ((state >>> 16) % (alphabet - 1));
  }
  return text;
}

test("suffix array and LCP match the naive ones on random and repetitive texts", () => {
  const texts = [
    Int32Array.from([0]),
    Int32Array.from([1, 0]),
    Int32Array.from([2, 1, 2, 1, 2, 1, 0]),
    Int32Array.from([1, 1, 1, 1, 1, 1, 1, 1, 0]),
    Int32Array.from([3, 1, 2, 1, 3, 1, 2, 1, 3, 1, 2, 1, 1, 0]),
  ];
  for (let seed = 1; seed <= 30; seed++) texts.push(randomText(50 + seed * 13, 2 + (seed % 6), seed));
  for (const text of texts) {
    const alphabet = Math.max(...text) + 1;
    const sa = suffixArray(text, alphabet);
    assert.deepEqual([...sa], naiveSuffixArray(text), `text ${[...text].join(",")}`);
    assert.deepEqual([...lcpArray(text, sa)], naiveLcp(text, sa));
  }
});

test("the text must end in a unique 0", () => {
  assert.throws(() => suffixArray(Int32Array.from([1, 2]), 3), /must end with the symbol 0/);
});
