import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Tokenizer } from "tokenizers";
import { openEncoder } from "../../src/data/prepare/encoder.js";
import { makeTestCorpus, SPECIAL_TOKENS } from "../../src/data/testing/sotu-tokenizer.js";

const fixture = makeTestCorpus(6);
const lines = readFileSync(fixture.corpus, "utf8").trimEnd().split("\n");

// Texts that stress the piece cache's equivalence argument: runs of spaces, leading and trailing
// spaces, added tokens inside text, a literal "▁", punctuation. (The test tokenizer, trained at
// the trainer's defaults, has no unknown token, so only characters of its training text appear.)
const TRICKY = [
  "",
  " ",
  "   ",
  "a",
  "  two  leading and trailing  ",
  "words with  double  spaces",
  "special [MASK] in [CLS]text[SEP] and <unk> <pad>",
  "▁already ▁marked",
  "(parentheses), \"quotes\"; semi-colons: and--dashes.",
  "end with space ",
  "x".repeat(40) + " " + "y".repeat(13),
];

test("the piece-cached encoder gives exactly the ids of the tokenizer on whole texts", async () => {
  const cached = await openEncoder(fixture.tokenizerDir);
  const plain = await openEncoder(fixture.tokenizerDir, { pieceCache: false });
  assert.equal(cached.cached, true);
  assert.equal(plain.cached, false);
  const texts = [...lines, ...TRICKY];
  const reference = Tokenizer.fromFile(join(fixture.tokenizerDir, "tokenizer.json"));
  const expected = await Promise.all(texts.map(async (t) => (await reference.encode(t)).getIds()));
  // Twice, so the second pass runs on a warm cache.
  for (let pass = 0; pass < 2; pass++) assert.deepEqual(await cached.encodeBatch(texts), expected);
  assert.deepEqual(await plain.encodeBatch(texts), expected);
  const flat = await cached.encodeBatchFlat(texts);
  assert.deepEqual([...flat.lengths], expected.map((e) => e.length));
  assert.deepEqual([...flat.ids], expected.flat());
});

test("concurrent batches on one encoder give the same ids as sequential ones", async () => {
  const cached = await openEncoder(fixture.tokenizerDir);
  const batches = [lines.slice(0, 2), lines.slice(2, 4), lines.slice(1, 5)];
  const together = await Promise.all(batches.map((b) => cached.encodeBatch(b)));
  const fresh = await openEncoder(fixture.tokenizerDir, { pieceCache: false });
  for (let i = 0; i < batches.length; i++) assert.deepEqual(together[i], await fresh.encodeBatch(batches[i]!));
});

test("the encoder reports special ids, padding, mask and vocabulary size", async () => {
  const enc = await openEncoder(fixture.tokenizerDir);
  const reference = Tokenizer.fromFile(join(fixture.tokenizerDir, "tokenizer.json"));
  assert.deepEqual([...enc.specialIds].sort((a, b) => a - b), SPECIAL_TOKENS.map((t) => reference.tokenToId(t)!).sort((a, b) => a - b));
  assert.equal(enc.padId, reference.tokenToId("<pad>"));
  assert.equal(enc.maskId, reference.tokenToId("[MASK]"));
  assert.equal(enc.vocabSize, reference.getVocabSize(true));
  const [ids] = await enc.encodeBatch(["hello"]);
  assert.equal(ids![0], reference.tokenToId("[CLS]"));
  assert.equal(ids!.at(-1), reference.tokenToId("[SEP]"));
});

test("a missing tokenizer is reported with the path and what to pass", async () => {
  await assert.rejects(openEncoder(join(fixture.dir, "nowhere")), /cannot read the tokenizer at .*nowhere\/tokenizer\.json.*--tokenizer/);
});
