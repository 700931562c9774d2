// The Unigram trainer on a SOTU slice: deterministic, the vocabulary it promises, better than characters.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readTextLines, saveTokenizer, trainUnigram, type TrainProgress } from "../../src/text/index.js";
import { sotuSlice } from "../helpers/sotu-slice.js";

const corpus = sotuSlice(20);
test.after(() => rmSync(corpus.dir, { recursive: true, force: true }));
const progress: TrainProgress[] = [];
const tokenizer = await trainUnigram(readTextLines([corpus.path]), { vocabSize: 1000, onProgress: (p) => progress.push(p) });

test("the vocabulary has the requested size, special tokens first in the given order", () => {
  assert.equal(tokenizer.vocabSize, 1000);
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((id) => tokenizer.idToToken(id)),
    ["[CLS]", "[SEP]", "<unk>", "<pad>", "[MASK]"],
  );
  assert.deepEqual([tokenizer.clsId, tokenizer.sepId, tokenizer.unkId, tokenizer.padId, tokenizer.maskId], [0, 1, 2, 3, 4]);
  assert.deepEqual([...tokenizer.specialIds].sort(), [0, 1, 2, 3, 4]);
});

test("every character of the corpus has a piece, so nothing encodes to <unk>", () => {
  const chars = new Set(corpus.lines.join(" ").replaceAll(" ", "▁"));
  for (const c of chars) assert.notEqual(tokenizer.tokenToId(c), undefined, `character ${JSON.stringify(c)}`);
  for (const line of corpus.lines) assert.ok(!tokenizer.encode(line).includes(tokenizer.unkId));
});

test("pieces are at most 16 characters and '▁' only starts them", () => {
  for (let id = 5; id < tokenizer.vocabSize; id++) {
    const piece = tokenizer.idToToken(id)!;
    assert.ok([...piece].length <= 16, piece);
    assert.ok(!piece.slice(1).includes("▁"), piece);
  }
});

test("pieces compress the text well beyond single characters", () => {
  let chars = 0,
    tokens = 0;
  for (const line of corpus.lines) {
    chars += [...line].length;
    tokens += tokenizer.encode(line, { addSpecialTokens: false }).length;
  }
  assert.ok(chars / tokens > 3, `only ${(chars / tokens).toFixed(2)} characters per token`);
});

test("progress covers reading, seeding, EM rounds and the end", () => {
  const phases = new Set(progress.map((p) => p.phase));
  assert.deepEqual([...phases], ["count", "seed", "em", "done"]);
  const count = progress.find((p) => p.phase === "count")!;
  assert.equal(count.phase === "count" && count.documents, corpus.lines.length);
});

test("the same input and options give a byte-identical tokenizer.json", async () => {
  const again = await trainUnigram(readTextLines([corpus.path]), { vocabSize: 1000 });
  await saveTokenizer(tokenizer, join(corpus.dir, "a"));
  await saveTokenizer(again, join(corpus.dir, "b"));
  assert.equal(
    readFileSync(join(corpus.dir, "b", "tokenizer.json"), "utf8"),
    readFileSync(join(corpus.dir, "a", "tokenizer.json"), "utf8"),
  );
});

test("custom special tokens take ids 0.. in order and play the named roles", async () => {
  const custom = await trainUnigram(corpus.lines.slice(0, 5), {
    vocabSize: 300,
    specialTokens: ["<pad>", "<s>", "</s>", "<unk>", "<mask>"],
    roles: { pad: "<pad>", cls: "<s>", sep: "</s>", unk: "<unk>", mask: "<mask>" },
  });
  assert.deepEqual([custom.padId, custom.clsId, custom.sepId, custom.unkId, custom.maskId], [0, 1, 2, 3, 4]);
  const ids = custom.encode("We the people <mask>.");
  assert.equal(ids[0], 1);
  assert.equal(ids[ids.length - 1], 2);
  assert.ok(ids.includes(4));
});

test("character coverage below 1 leaves rare characters to <unk>", async () => {
  const text = ["aaaa bbbb aaab abab ".repeat(50) + "z"];
  const covered = await trainUnigram(text, { vocabSize: 20, characterCoverage: 0.99 });
  assert.equal(covered.tokenToId("z"), undefined);
  assert.deepEqual(covered.encode("z", { addSpecialTokens: false }), [covered.tokenToId("▁")!, covered.unkId]);
});

test("bad input fails with a message that names the problem", async () => {
  await assert.rejects(trainUnigram(["", "[MASK]"], { vocabSize: 100 }), /the corpus is empty: 2 documents read/);
  await assert.rejects(
    trainUnigram(corpus.lines.slice(0, 2), { vocabSize: 20 }),
    /vocab size 20 is too small: 5 special tokens \+ \d+ required characters need at least \d+/,
  );
  await assert.rejects(
    trainUnigram(["text"], { vocabSize: 100, specialTokens: ["[CLS]", "[SEP]"] }),
    /the unk token "<unk>" is not among the special tokens/,
  );
  await assert.rejects(trainUnigram(["text"], { vocabSize: 100, specialTokens: ["a", "a"] }), /special token "a" is listed twice/);
  await assert.rejects(trainUnigram(["text"], { vocabSize: 0 }), /vocab size must be a positive integer/);
  await assert.rejects(trainUnigram(["text"], { vocabSize: 100, characterCoverage: 1.5 }), /character coverage must be in \(0, 1\]/);
});
