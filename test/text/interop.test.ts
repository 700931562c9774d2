// Kiln's tokenizer.json loaded by Hugging Face `tokenizers` encodes and decodes exactly as Kiln does.
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadTokenizer, readTextLines, saveTokenizer, trainUnigram } from "../../src/text/index.js";
import { EDGE_CASES, sotuSlice } from "../helpers/sotu-slice.js";

interface HfEncoding {
  getIds(): number[];
}
interface HfTokenizer {
  encode(text: string, pair?: null, opts?: { addSpecialTokens?: boolean }): Promise<HfEncoding>;
  encodeBatch(texts: string[]): Promise<HfEncoding[]>;
  decode(ids: number[], skipSpecialTokens: boolean): Promise<string>;
  save(path: string, pretty?: boolean): void;
  getVocabSize(withAddedTokens?: boolean): number;
}
const hfTokenizers = createRequire(import.meta.url)("tokenizers") as { Tokenizer: { fromFile(path: string): HfTokenizer } };

const corpus = sotuSlice(30);
const outDir = join(corpus.dir, "tokenizer");
await saveTokenizer(await trainUnigram(readTextLines([corpus.path]), { vocabSize: 1500 }), outDir);
const ours = await loadTokenizer(outDir);
const hf = hfTokenizers.Tokenizer.fromFile(join(outDir, "tokenizer.json"));
test.after(() => rmSync(corpus.dir, { recursive: true, force: true }));

test("HF tokenizers reads the same vocabulary", () => {
  assert.equal(hf.getVocabSize(true), ours.vocabSize);
});

test("every SOTU line of the slice encodes to the same ids", async () => {
  const theirs = await hf.encodeBatch(corpus.lines);
  corpus.lines.forEach((line, i) => assert.deepEqual(ours.encode(line), theirs[i].getIds(), `line ${i + 1}`));
});

test("edge cases encode to the same ids, with and without special tokens", async () => {
  for (const text of EDGE_CASES) {
    assert.deepEqual(ours.encode(text), (await hf.encode(text)).getIds(), JSON.stringify(text));
    assert.deepEqual(
      ours.encode(text, { addSpecialTokens: false }),
      (await hf.encode(text, null, { addSpecialTokens: false })).getIds(),
      JSON.stringify(text),
    );
  }
});

test("[MASK] in text is one id, with the space before it stripped", () => {
  const ids = ours.encode("Goal of my life is to [MASK].");
  assert.equal(ids.filter((id) => id === ours.maskId).length, 1);
  assert.equal(ours.idToToken(ids[ids.indexOf(ours.maskId) - 1]), "▁to");
});

test("decoding agrees, keeping or skipping special tokens", async () => {
  for (const text of [...EDGE_CASES, ...corpus.lines.slice(0, 3)]) {
    const ids = ours.encode(text);
    assert.equal(ours.decode(ids), await hf.decode(ids, false), JSON.stringify(text));
    assert.equal(ours.decode(ids, { skipSpecialTokens: true }), await hf.decode(ids, true), JSON.stringify(text));
  }
});

test("scores survive HF's parser bit for bit (so Viterbi ties break alike)", () => {
  const resaved = join(corpus.dir, "resaved.json");
  hf.save(resaved, true);
  const mine = JSON.parse(readFileSync(join(outDir, "tokenizer.json"), "utf8"));
  const theirs = JSON.parse(readFileSync(resaved, "utf8"));
  assert.deepEqual(theirs, mine);
});
