// Kiln's BPE and WordPiece training against `tokenizers`' BpeTrainer and WordPieceTrainer on the same
// SOTU speeches with the same pipeline and settings (test/python/hf_train_merges.py). BPE: the same
// vocabulary, id for id, and the same merges in the same order. WordPiece: `tokenizers` itself gives
// the "##" continuation characters ids in its hash map's order, which changes from run to run (and the
// merges' ties follow the ids), so two of its own runs differ in the ids of several hundred tokens and
// in a few tokens; the test asks for the same token set up to that noise. The trained files then
// encode in `tokenizers` exactly as in Kiln.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { saveTokenizer, trainMergeModel, type PipelineTokenizer } from "../../src/text/index.js";
import { writeSotuCorpus } from "../../src/data/sotu.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { tempDir } from "../helpers/temp-dir.js";

const SPEECHES = 12;
const VOCAB = 3000;
const SPECIAL = ["[CLS]", "[SEP]", "<unk>", "<pad>", "[MASK]"];

interface ModelJson {
  vocab: Record<string, number>;
  merges?: Array<string | [string, string]>;
}

const root = tempDir("kiln-train-merges-");
const corpus = join(root, "sotu.txt");
writeSotuCorpus(corpus, { first: SPEECHES });
const lines = readFileSync(corpus, "utf8")
  .split("\n")
  .filter((l) => l.length > 0);

let theirs: Record<string, ModelJson> = {};
let setupError: unknown;
if (!pythonSkip) {
  try {
    const paths = runPython<Record<string, string>>("hf_train_merges.py", [], {
      input: JSON.stringify({
        corpus,
        out: join(root, "hf"),
        vocab_size: VOCAB,
        special_tokens: SPECIAL,
        wordpiece_min_frequency: 2,
        wordpiece_limit_alphabet: 1000,
      }),
    });
    for (const [name, path] of Object.entries(paths)) theirs[name] = (JSON.parse(readFileSync(path, "utf8")) as { model: ModelJson }).model;
  } catch (e) {
    setupError = e;
  }
}

function modelOf(tok: PipelineTokenizer): ModelJson {
  return (JSON.parse(tok.json) as { model: ModelJson }).model;
}

test(`BPE: the vocabulary and merges of tokenizers' BpeTrainer (${SPEECHES} speeches, vocab ${VOCAB})`, { skip: pythonSkip }, async (t) => {
  if (setupError) throw setupError;
  const ours = modelOf(await trainMergeModel("bpe", lines, { vocabSize: VOCAB, specialTokens: SPECIAL }));
  const hf = theirs.bpe!;
  assert.equal(Object.keys(ours.vocab).length, VOCAB);
  assert.deepEqual(ours.vocab, hf.vocab);
  const spell = (m: string | [string, string]): string => (Array.isArray(m) ? m.join(" ") : m);
  assert.deepEqual(ours.merges!.map(spell), hf.merges!.map(spell));
  t.diagnostic(`${VOCAB} tokens at the same ids, ${hf.merges!.length} merges in the same order`);
});

test(`WordPiece: the tokens of tokenizers' WordPieceTrainer, up to its own run-to-run noise`, { skip: pythonSkip }, async (t) => {
  if (setupError) throw setupError;
  const ours = modelOf(
    await trainMergeModel("wordpiece", lines, { vocabSize: VOCAB, specialTokens: SPECIAL, minFrequency: 2, limitAlphabet: 1000 }),
  );
  const hf = theirs.wordpiece!;
  const both = Object.keys(ours.vocab).filter((k) => k in hf.vocab).length;
  t.diagnostic(`${both} of ${VOCAB} tokens in both`);
  assert.equal(Object.keys(ours.vocab).length, VOCAB);
  for (const s of SPECIAL) assert.equal(ours.vocab[s], hf.vocab[s], s);
  assert.ok(both >= VOCAB * 0.99, `only ${both} of ${VOCAB} tokens in common`);
});

test("a trained BPE directory encodes in tokenizers exactly as in Kiln", { skip: pythonSkip }, async () => {
  if (setupError) throw setupError;
  const tok = await trainMergeModel("bpe", lines, { vocabSize: VOCAB, specialTokens: SPECIAL });
  const dir = join(root, "kiln-bpe");
  await saveTokenizer(tok, dir);
  const texts = lines
    .slice(0, 4)
    .flatMap((l) => l.split(/(?<=[.!?])\s+/))
    .concat(["Goal of my life is to [MASK].", "Ünïcödé 😀 ＦＵＬＬ"]);
  const out = join(root, "encoded.json");
  runPython("hf_tokenizers_encode.py", [], {
    input: JSON.stringify({ files: { bpe: join(dir, "tokenizer.json") }, texts, pairs: [], out }),
  });
  const hf = (JSON.parse(readFileSync(out, "utf8")) as Record<string, { single: Array<[number[]]>; decoded: Array<[string, string]> }>)
    .bpe!;
  texts.forEach((text, i) => {
    assert.deepEqual(tok.encode(text), hf.single[i]![0], JSON.stringify(text).slice(0, 80));
    assert.equal(tok.decode(tok.encode(text), { skipSpecialTokens: true }), hf.decoded[i]![1]);
  });
});
