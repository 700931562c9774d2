// A real tokenizer for tests and benchmarks: Hugging Face's Unigram trainer at its defaults, run on a
// slice of the SOTU corpus, with the special tokens and the "[CLS] $A [SEP]" template Kiln's
// tokenizers have. (It lives outside test/ because the test runner executes every file there.)
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tokenizer, Unigram, metaspaceDecoder, metaspacePreTokenizer, templateProcessing } from "tokenizers";
import { writeSotuCorpus } from "../sotu.js";

export const SPECIAL_TOKENS = ["[CLS]", "[SEP]", "<unk>", "<pad>", "[MASK]"];

export interface TestCorpus {
  dir: string;
  /** Text file of the slice, one speech per line. */
  corpus: string;
  /** Directory holding tokenizer.json. */
  tokenizerDir: string;
}

/** Writes the first `speeches` SOTU speeches and a tokenizer trained on them into a fresh directory. */
export function makeTestCorpus(speeches = 6): TestCorpus {
  const dir = mkdtempSync(join(tmpdir(), "kiln-data-"));
  const corpus = join(dir, "corpus.txt");
  writeSotuCorpus(corpus, { first: speeches });
  const tokenizerDir = join(dir, "tokenizer");
  mkdirSync(tokenizerDir);
  const tokenizer = new Tokenizer(Unigram.empty());
  tokenizer.setPreTokenizer(metaspacePreTokenizer());
  tokenizer.setDecoder(metaspaceDecoder());
  tokenizer.train([corpus]);
  tokenizer.addSpecialTokens(SPECIAL_TOKENS);
  const cls = tokenizer.tokenToId("[CLS]")!;
  const sep = tokenizer.tokenToId("[SEP]")!;
  tokenizer.setPostProcessor(templateProcessing("[CLS] $A [SEP]", null, [["[CLS]", cls], ["[SEP]", sep]]));
  tokenizer.save(join(tokenizerDir, "tokenizer.json"));
  return { dir, corpus, tokenizerDir };
}
