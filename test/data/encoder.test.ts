// The encoder data preparation uses: Kiln's tokenizer, giving Hugging Face tokenizers' ids exactly.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Tokenizer } from "tokenizers";
import { openEncoder } from "../../src/data/prepare/text-encoder.js";
import { EDGE_CASES, makeTestCorpus, SPECIAL_TOKENS } from "../helpers/sotu-slice.js";

const fixture = await makeTestCorpus(6);
const lines = readFileSync(fixture.corpus, "utf8").trimEnd().split("\n");

test("the encoder gives exactly Hugging Face tokenizers' ids for the same tokenizer.json", async () => {
  const enc = await openEncoder(fixture.tokenizerDir);
  const texts = [...lines, ...EDGE_CASES];
  const reference = Tokenizer.fromFile(join(fixture.tokenizerDir, "tokenizer.json"));
  const expected = await Promise.all(texts.map(async (t) => (await reference.encode(t)).getIds()));
  assert.deepEqual(await enc.encodeBatch(texts), expected);
  const flat = await enc.encodeBatchFlat(texts);
  assert.deepEqual(
    [...flat.lengths],
    expected.map((e) => e.length),
  );
  assert.deepEqual([...flat.ids], expected.flat());
});

test("the encoder reports special ids, padding, mask and vocabulary size", async () => {
  const enc = await openEncoder(fixture.tokenizerDir);
  const reference = Tokenizer.fromFile(join(fixture.tokenizerDir, "tokenizer.json"));
  assert.deepEqual(
    [...enc.specialIds].sort((a, b) => a - b),
    SPECIAL_TOKENS.map((t) => reference.tokenToId(t)!).sort((a, b) => a - b),
  );
  assert.equal(enc.padId, reference.tokenToId("<pad>"));
  assert.equal(enc.maskId, reference.tokenToId("[MASK]"));
  assert.equal(enc.vocabSize, reference.getVocabSize(true));
  const [ids] = await enc.encodeBatch(["hello"]);
  assert.equal(ids![0], reference.tokenToId("[CLS]"));
  assert.equal(ids!.at(-1), reference.tokenToId("[SEP]"));
});

test("a missing tokenizer is reported with the path and what to pass", async () => {
  await assert.rejects(
    openEncoder(join(fixture.dir, "nowhere")),
    /cannot load the tokenizer in .*nowhere.*tokenizer\.json does not exist.*Pass the directory holding tokenizer\.json as the tokenizer/,
  );
});
