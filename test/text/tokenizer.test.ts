// The encoding pipeline on a small hand-made vocabulary: template, added tokens, normalization,
// Metaspace words, <unk> fusion, decoding.
import test from "node:test";
import assert from "node:assert/strict";
import { UnigramTokenizer, type UnigramTokenizerSpec } from "../../src/text/index.js";
import { DEFAULT_ROLES } from "../../src/text/index.js";
import { OptionError } from "../../src/core/option-error.js";

const specials = ["[CLS]", "[SEP]", "<unk>", "<pad>", "[MASK]"];
const spec: UnigramTokenizerSpec = {
  vocab: [
    ...specials.map((t) => [t, 0] as const),
    ["▁", -2],
    ["a", -3],
    ["b", -3],
    ["▁a", -2.5],
    ["ab", -2],
    ["▁ab", -1.5],
    ['"', -4],
    [".", -4],
    ["fi", -3.5],
    ["▁fi", -3],
  ],
  addedTokens: specials.map((content, id) => ({ id, content, lstrip: content === "[MASK]", rstrip: false, special: true })),
  roles: DEFAULT_ROLES,
};
const tok = new UnigramTokenizer(spec);
const id = (piece: string) => tok.tokenToId(piece)!;
const pieces = (text: string) => tok.encode(text, { addSpecialTokens: false }).map((i) => tok.idToToken(i));

test("special token ids and the [CLS] $A [SEP] template", () => {
  assert.deepEqual([tok.clsId, tok.sepId, tok.unkId, tok.padId, tok.maskId], [0, 1, 2, 3, 4]);
  assert.equal(tok.vocabSize, 15);
  assert.deepEqual(tok.encode("ab"), [0, id("▁ab"), 1]);
  assert.deepEqual(tok.encode(""), [0, 1]);
  assert.deepEqual(tok.encode("", { addSpecialTokens: false }), []);
});

test("Metaspace words: every space starts a word, a leading one is not doubled", () => {
  assert.deepEqual(pieces("ab ab"), ["▁ab", "▁ab"]);
  assert.deepEqual(pieces(" ab"), ["▁ab"]);
  assert.deepEqual(pieces("a  b"), ["▁a", "▁", "▁", "b"]);
  assert.deepEqual(pieces("ab "), ["▁ab", "▁"]);
});

test("the best segmentation wins, and unknown characters fuse into one <unk>", () => {
  assert.deepEqual(pieces("aab"), ["▁a", "ab"]);
  assert.deepEqual(pieces("azzb"), ["▁a", "<unk>", "b"]);
  assert.deepEqual(pieces("😀"), ["▁", "<unk>"]);
});

test("NFKC and the quote replacements run before segmentation", () => {
  assert.deepEqual(pieces("``ab''"), ["▁", '"', "ab", '"']);
  assert.deepEqual(pieces("ﬁ"), ["▁fi"]);
  assert.deepEqual(pieces("ａｂ"), ["▁ab"]);
});

test("special tokens in text are single ids; [MASK] swallows the spaces before it", () => {
  assert.deepEqual(tok.encode("ab  [MASK]."), [0, id("▁ab"), 4, id("▁"), id("."), 1]);
  assert.deepEqual(tok.encode("ab [SEP]ab"), [0, id("▁ab"), id("▁"), 1, id("▁ab"), 1]);
  assert.deepEqual(tok.encode("[MASK][MASK]", { addSpecialTokens: false }), [4, 4]);
});

test("decode reads '▁' as a space except at the start, and can skip special tokens", () => {
  const ids = tok.encode("ab ab.");
  assert.equal(tok.decode(ids), "[CLS] ab ab.[SEP]");
  assert.equal(tok.decode(ids, { skipSpecialTokens: true }), "ab ab.");
  assert.equal(tok.decode([999, -1, id("▁ab")]), "ab");
});

test("encodeBatch is encode per text, and cached words give the same ids as fresh ones", () => {
  const texts = ["ab ab ab", "aab ab", "ab  ab"];
  const warm = tok.encodeBatch(texts);
  const cold = new UnigramTokenizer(spec);
  assert.deepEqual(
    warm,
    texts.map((t) => cold.encode(t)),
  );
  assert.deepEqual(tok.encodeBatch(texts), warm);
});

test("a role naming a token that is not special is refused", () => {
  assert.throws(
    () => new UnigramTokenizer({ ...spec, roles: { ...DEFAULT_ROLES, pad: "<nope>" } }),
    /the pad token "<nope>" is not one of the tokenizer's special tokens/,
  );
});

test("encodePair: [CLS] A [SEP] B [SEP] with B of type 1, cut longest first keeping the special tokens", () => {
  const [ab, a, fi] = [id("▁ab"), id("▁a"), id("▁fi")];
  assert.deepEqual(tok.encodePair("ab", "fi"), { ids: [0, ab, 1, fi, 1], typeIds: [0, 0, 0, 1, 1], truncated: false });
  assert.deepEqual(tok.encodePair("ab", undefined), { ids: tok.encode("ab"), typeIds: [0, 0, 0], truncated: false });
  assert.deepEqual(tok.encodePair("ab", "fi", { addSpecialTokens: false }), { ids: [ab, fi], typeIds: [0, 1], truncated: false });
  // 4 text tokens and 1 into a budget of 3 (6 less the 3 special tokens): the longer loses.
  assert.deepEqual(tok.encodePair("ab a ab a", "fi", { maxLength: 6 }), {
    ids: [0, ab, a, 1, fi, 1],
    typeIds: [0, 0, 0, 0, 1, 1],
    truncated: true,
  });
  assert.deepEqual(tok.encodePair("ab a ab a", undefined, { maxLength: 4 }).ids, [0, ab, a, 1]);
  assert.equal(tok.encodePair("ab a", "fi", { maxLength: 6 }).truncated, false);
  assert.throws(
    () => tok.encodePair("ab", "fi", { maxLength: 0 }),
    (e: unknown) => e instanceof OptionError && e.option === "maxLength" && /positive integer/.test(e.message),
  );
  // A causal template puts the bos token before each text, the second of type 1.
  const causal = new UnigramTokenizer({ ...spec, template: "causal" });
  assert.deepEqual(causal.encodePair("ab", "fi"), { ids: [0, ab, 0, fi], typeIds: [0, 0, 1, 1], truncated: false });
});
