// Word counting agrees with the Metaspace split done the obvious way.
import test from "node:test";
import assert from "node:assert/strict";
import { WordCounter } from "../../src/text/train/word-counter.js";

function naiveCounts(texts: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of texts) {
    if (text.length === 0) continue;
    let s = text.replaceAll(" ", "▁");
    if (!s.startsWith("▁")) s = "▁" + s;
    for (const word of s.split(/(?=▁)/)) counts.set(word.slice(1), (counts.get(word.slice(1)) ?? 0) + 1);
  }
  return counts;
}

test("counts match a naive Metaspace split, including odd spacing and '▁' in the text", () => {
  const texts = ["the cat  the dog ", " the", "▁the▁cat", "", "x", "   ", "😀 😀x the"];
  for (let i = 0; i < 3000; i++) texts.push(`word${i % 700} and word${(i * 7) % 1300}`);
  const counter = new WordCounter();
  for (const t of texts) counter.addText(t);
  const got = new Map<string, number>();
  counter.forEach((units, start, length, count) => got.set(String.fromCharCode(...units.subarray(start, start + length)), count));
  const want = naiveCounts(texts);
  assert.deepEqual(got, want);
  assert.equal(counter.size, want.size);
  assert.equal(
    counter.totalWords,
    [...want.values()].reduce((a, b) => a + b, 0),
  );
});
