// A slice of the SOTU corpus written to a fresh temporary directory, for tests that train tokenizers.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeSotuCorpus } from "../../src/data/sotu.js";
import { saveTokenizer, trainUnigram } from "../../src/text/index.js";
import { tempDir } from "./temp-dir.js";

export interface CorpusSlice {
  dir: string;
  path: string;
  lines: string[];
}

/** The first `speeches` speeches, one per line, in DIR/sotu.txt. */
export function sotuSlice(speeches: number): CorpusSlice {
  const dir = tempDir("kiln-text-test-");
  const path = join(dir, "sotu.txt");
  writeSotuCorpus(path, { first: speeches });
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.length > 0);
  return { dir, path, lines };
}

/** Text that exercises every step of the pipeline: quotes, NFKC, spacing, special tokens, unicode. */
/**
 * Writes the first `speeches` speeches to `path` one sentence a line (sentences of more than 20
 * characters): a corpus that trains a tokenizer and a tiny model in seconds. Returns `path`.
 */
export function writeSentenceCorpus(path: string, speeches = 2): string {
  writeFileSync(path, sentenceCorpus(sotuSlice(speeches).lines));
  return path;
}

/** Speeches (one a line) as a corpus of their sentences longer than 20 characters, one a line. */
export function sentenceCorpus(speeches: readonly string[]): string {
  const sentences = speeches.flatMap((l) => l.split(/(?<=[.!?])\s+/));
  return sentences.filter((s) => s.length > 20).join("\n") + "\n";
}

export const EDGE_CASES: readonly string[] = [
  "",
  " ",
  "   ",
  "a  b",
  " leading space",
  "trailing space ",
  "``quoted'' and \"plain\" and '''triple'''",
  "ﬁnance ﬀ ﬃ",
  "ＦＵＬＬ　ｗｉｄｔｈ １２３ ＡＢＣ",
  "Goal of my life is to [MASK].",
  "x[MASK]y",
  "  [MASK]  [MASK][MASK]",
  "[CLS] [SEP] <unk> <pad> in text",
  "［ＭＡＳＫ］ full-width brackets",
  "tab\there and\nnewline",
  "emoji 😀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
  "\u00a0no-break\u00a0space\u2003em space",
  "▁meta▁space▁",
  "1,234,567.89 dollars in 1990's",
  "\ud800 lone surrogate \udc00",
  "ǅ Ⅻ ㎏ ½ ℌ ①",
  "\ufeffbyte order mark",
  "Ünïcödé àçcénts café",
  "日本語のテキスト",
];

export const SPECIAL_TOKENS = ["[CLS]", "[SEP]", "<unk>", "<pad>", "[MASK]"];

export interface TestCorpus {
  dir: string;
  /** Text file of the slice, one speech per line. */
  corpus: string;
  /** Directory holding a Kiln tokenizer (tokenizer.json and its config files) trained on the slice. */
  tokenizerDir: string;
}

/** The first `speeches` speeches and a Kiln tokenizer (vocab `vocabSize`) trained on them. */
export async function makeTestCorpus(speeches = 6, vocabSize = 2000): Promise<TestCorpus> {
  const slice = sotuSlice(speeches);
  const tokenizerDir = join(slice.dir, "tokenizer");
  await saveTokenizer(await trainUnigram(slice.lines, { vocabSize }), tokenizerDir);
  return { dir: slice.dir, corpus: slice.path, tokenizerDir };
}
