// HfTokenizer without Python: a byte-level BPE that Kiln trains, read back by `tokenizers` (the npm
// package, in process), gives the same ids, offsets and decoded text on SOTU lines and edge cases; and
// files Kiln cannot run are refused naming the field at fault.
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HfTokenizer, loadTokenizer, PipelineTokenizer, TokenizerFileError, trainMergeModel } from "../../src/text/index.js";
import { truncatePair } from "../../src/text/pipeline/encoding.js";
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
/** A WordLevel tokenizer.json of one word, "x", with no special tokens. */
const tinyWordLevel = {
  version: "1.0",
  added_tokens: [],
  pre_tokenizer: { type: "WhitespaceSplit" },
  model: { type: "WordLevel", vocab: { x: 0, "<unk>": 1 }, unk_token: "<unk>" },
};
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

test("loadTokenizer takes a trained BPE directory as a Kiln tokenizer; a file's own padding and truncation are left out", async () => {
  const trained = await trainMergeModel("bpe", corpus.lines, { vocabSize: 800 });
  const dir = join(corpus.dir, "bpe-dir");
  mkdirSync(dir);
  writeFileSync(join(dir, "tokenizer.json"), trained.json);
  const loaded = await loadTokenizer(dir);
  const text = "The Union is strong, and the state of our Union is strong.";
  assert.deepEqual(loaded.encode(text), trained.encode(text));
  assert.deepEqual([loaded.clsId, loaded.sepId, loaded.unkId, loaded.padId, loaded.maskId], [0, 1, 2, 3, 4]);
  // As transformers' tokenizers: the file's padding and truncation apply only when a call asks for them.
  const padded = {
    ...(JSON.parse(trained.json) as object),
    padding: { strategy: { Fixed: 64 }, direction: "Right", pad_id: 3, pad_type_id: 0, pad_token: "<pad>" },
    truncation: { max_length: 6, strategy: "LongestFirst", stride: 0, direction: "Right" },
  };
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(padded));
  const pretrained = await loadTokenizer(dir);
  assert.deepEqual(pretrained.encode(text), trained.encode(text));
  const asFile = HfTokenizer.fromJson(JSON.stringify(padded), "padded.json").encode(text);
  assert.equal(asFile.ids.length, 64, "HfTokenizer applies the file's padding");
  const cut = pretrained.encodePair(text, "A second text.", { maxLength: 10 });
  assert.equal(cut.ids.length, 10);
  assert.ok(cut.truncated);
});

test("encodePair lays a pair out by the file's post-processor: TemplateProcessing, BertProcessing, RobertaProcessing", async () => {
  const trained = await trainMergeModel("bpe", corpus.lines, { vocabSize: 800 });
  const hints = { pad: "<pad>", mask: "[MASK]", sep: "[SEP]" };
  const withPost = (post_processor: unknown) =>
    PipelineTokenizer.fromJson(JSON.stringify({ ...(JSON.parse(trained.json) as object), post_processor }), "t.json", hints);
  const template = withPost((JSON.parse(trained.json) as { post_processor: unknown }).post_processor);
  const [cls, sep] = [template.clsId, template.sepId];
  const a = template.encode("We hold these truths to be self-evident.", { addSpecialTokens: false });
  const b = template.encode("Liberty.", { addSpecialTokens: false });
  const [text, pair] = ["We hold these truths to be self-evident.", "Liberty."];
  const bert = { ids: [cls, ...a, sep, ...b, sep], typeIds: [0, ...a.map(() => 0), 0, ...b.map(() => 1), 1], truncated: false };
  assert.deepEqual(template.encodePair(text, pair), bert, "Kiln's template: [CLS] $A [SEP] $B:1 [SEP]:1");
  const bertProcessing = withPost({ type: "BertProcessing", cls: ["[CLS]", cls], sep: ["[SEP]", sep] });
  assert.deepEqual(bertProcessing.encodePair(text, pair), bert, "BertProcessing");
  const roberta = withPost({
    type: "Sequence",
    processors: [
      { type: "ByteLevel", trim_offsets: false },
      { type: "RobertaProcessing", cls: ["[CLS]", cls], sep: ["[SEP]", sep] },
    ],
  });
  assert.deepEqual([roberta.clsId, roberta.sepId], [cls, sep], "the roles come from RobertaProcessing");
  assert.deepEqual(roberta.encodePair(text, pair), {
    ids: [cls, ...a, sep, sep, ...b, sep],
    typeIds: [cls, ...a, sep, sep, ...b, sep].map(() => 0),
    truncated: false,
  });
  // Four special tokens and room for the pair twice over: the pair stays whole, the longer text takes the rest.
  const budget = 2 * b.length + 1;
  assert.ok(a.length > budget - b.length, "the text is the longer part");
  const cut = roberta.encodePair(text, pair, { maxLength: budget + 4 });
  assert.deepEqual(cut.ids, [cls, ...a.slice(0, budget - b.length), sep, sep, ...b, sep]);
  assert.ok(cut.truncated);
});

test("truncatePair is tokenizers' truncate_encodings (its own test table, max_length 7)", () => {
  const enc = (n: number) => HfTokenizer.fromJson(JSON.stringify(tinyWordLevel), "w.json").encode("x ".repeat(n));
  for (const [n1, n2, want] of [
    [2, 8, [2, 5]],
    [4, 4, [3, 4]],
    [4, 8, [3, 4]],
    [8, 2, [5, 2]],
    [8, 4, [4, 3]],
    [8, 8, [3, 4]],
    [0, 8, [0, 7]],
    [2, 4, [2, 4]],
  ] as const) {
    const [a, b] = truncatePair(enc(n1), enc(n2), 7, { strategy: "LongestFirst", direction: "Right" });
    assert.deepEqual([a.ids.length, b!.ids.length], want, `${n1} and ${n2}`);
  }
});
