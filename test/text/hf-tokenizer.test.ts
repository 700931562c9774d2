// HfTokenizer without Python: a byte-level BPE that Kiln trains, read back by `tokenizers` (the npm
// package, in process), gives the same ids, offsets and decoded text on SOTU lines and edge cases; and
// files Kiln cannot run are refused naming the field at fault.
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HfTokenizer, loadTokenizer, TokenizerFileError, trainMergeModel } from "../../src/text/index.js";
import { EDGE_CASES, sotuSlice } from "../helpers/sotu-slice.js";
import { charOffsets, LONE_SURROGATE } from "../helpers/tokenizers-offsets.js";

interface NpmEncoding {
  getIds(): number[];
  getOffsets(): Array<[number, number]>;
}
interface NpmTokenizer {
  encode(text: string): Promise<NpmEncoding>;
  decode(ids: number[], skipSpecialTokens: boolean): Promise<string>;
}
const npm = createRequire(import.meta.url)("tokenizers") as { Tokenizer: { fromFile(path: string): NpmTokenizer } };

const corpus = sotuSlice(4);
test.after(() => rmSync(corpus.dir, { recursive: true, force: true }));

test("a trained byte-level BPE encodes and decodes as tokenizers reads it", async () => {
  const trained = await trainMergeModel("bpe", corpus.lines, { vocabSize: 1200 });
  const file = join(corpus.dir, "bpe.json");
  writeFileSync(file, trained.json);
  const ours = HfTokenizer.fromJson(trained.json, file);
  const theirs = npm.Tokenizer.fromFile(file);
  const texts = [...corpus.lines.flatMap((l) => l.split(/(?<=[.!?])\s+/)).slice(0, 300), ...EDGE_CASES].filter(
    (t) => !LONE_SURROGATE.test(t),
  );
  for (const text of texts) {
    const mine = ours.encode(text);
    const hf = await theirs.encode(text);
    assert.deepEqual(mine.ids, hf.getIds(), JSON.stringify(text).slice(0, 80));
    assert.deepEqual(charOffsets(text, mine.offsets), hf.getOffsets(), `offsets of ${JSON.stringify(text).slice(0, 80)}`);
    for (const skip of [false, true]) assert.equal(ours.decode(mine.ids, { skipSpecialTokens: skip }), await theirs.decode(mine.ids, skip));
  }
});

test("components Kiln does not run, and broken fields, are refused with the field named", () => {
  const base = {
    version: "1.0",
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: { type: "Whitespace" },
    post_processor: null,
    decoder: null,
    model: { type: "WordLevel", vocab: { "<unk>": 0, a: 1 }, unk_token: "<unk>" },
  };
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      "an unknown normalizer in a sequence",
      { normalizer: { type: "Sequence", normalizers: [{ type: "NFC" }, { type: "Shout" }] } },
      /t\.json: "normalizer\.normalizers\[1\]" has type "Shout", which Kiln does not run \(it runs BertNormalizer, NFC/,
    ],
    [
      "SentencePiece's precompiled charsmap",
      { normalizer: { type: "Precompiled", precompiled_charsmap: "" } },
      /"normalizer" is a Precompiled/,
    ],
    [
      "a single-word added token",
      { added_tokens: [{ id: 1, content: "a", single_word: true, lstrip: false, rstrip: false, normalized: false, special: true }] },
      /"added_tokens\[0\]" \("a"\) has single_word true/,
    ],
    [
      "an added token matched after normalization",
      { normalizer: { type: "Lowercase" }, added_tokens: [{ id: 1, content: "a", normalized: true, special: false }] },
      /"added_tokens\[0\]" \("a"\) has normalized true; Kiln matches added tokens on the raw text/,
    ],
    [
      "BPE dropout",
      { model: { type: "BPE", vocab: { a: 0 }, merges: [], dropout: 0.1 } },
      /"model\.dropout" is 0\.1; Kiln encodes deterministically/,
    ],
    [
      "a merge of unknown tokens",
      { model: { type: "BPE", vocab: { a: 0, b: 1 }, merges: ["a c"] } },
      /"model\.merges\[0\]" merges "a" and "c", but the vocabulary lacks "c"/,
    ],
    [
      "a WordPiece unk outside the vocabulary",
      { model: { type: "WordPiece", vocab: { a: 0 }, unk_token: "[UNK]" } },
      /"model\.unk_token" is "\[UNK\]", which is not in "vocab"/,
    ],
    [
      "a Split without a pattern",
      { pre_tokenizer: { type: "Split", pattern: 3, behavior: "Isolated" } },
      /"pre_tokenizer\.pattern" is 3, expected \{"String": text\} or \{"Regex": pattern\}/,
    ],
    [
      "a bad split behavior",
      { pre_tokenizer: { type: "Punctuation", behavior: "Loud" } },
      /"pre_tokenizer\.behavior" is "Loud", expected one of Removed/,
    ],
    [
      "a template naming a token it does not define",
      {
        post_processor: { type: "TemplateProcessing", single: [{ SpecialToken: { id: "[X]", type_id: 0 } }], pair: [], special_tokens: {} },
      },
      /"post_processor\.single" names the special token "\[X\]"/,
    ],
  ];
  for (const [what, patch, message] of cases) {
    assert.throws(
      () => HfTokenizer.fromJson(JSON.stringify({ ...base, ...patch }), "t.json"),
      (e: unknown) => e instanceof TokenizerFileError && message.test(e.message),
      what,
    );
  }
});

test("loadTokenizer takes a trained BPE directory as a Kiln tokenizer, and refuses a file that pads or truncates", async () => {
  const trained = await trainMergeModel("bpe", corpus.lines, { vocabSize: 800 });
  const dir = join(corpus.dir, "bpe-dir");
  mkdirSync(dir);
  writeFileSync(join(dir, "tokenizer.json"), trained.json);
  const loaded = await loadTokenizer(dir);
  assert.deepEqual(loaded.encode("The Union is strong."), trained.encode("The Union is strong."));
  assert.deepEqual([loaded.clsId, loaded.sepId, loaded.unkId, loaded.padId, loaded.maskId], [0, 1, 2, 3, 4]);
  const padded = {
    ...(JSON.parse(trained.json) as object),
    padding: { strategy: "BatchLongest", direction: "Right", pad_id: 3, pad_type_id: 0, pad_token: "<pad>" },
  };
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(padded));
  await assert.rejects(loadTokenizer(dir), /tokenizer\.json: "padding" is set; Kiln encodes training data without truncation or padding/);
});
