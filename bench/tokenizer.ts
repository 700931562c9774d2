// `npm run bench -- tokenizer [FILE] [VOCAB_SIZE]`: trains a Unigram tokenizer on FILE (default: the whole
// SOTU corpus, one speech per line) and prints one JSON line:
//   train_s            wall time of reading + training (as SentencePiece's trainer is timed for comparison)
//   chars_per_token    characters of FILE / tokens of its non-empty lines without [CLS]/[SEP] (the
//                      definition used for SentencePiece's figure, so the two compare)
//   peak_mb            peak resident memory of this process by the end of training
//   encode_mb_per_s    UTF-8 megabytes of FILE per second encoded by a freshly loaded tokenizer, one thread
//   hf_mismatched_lines  lines on which Hugging Face `tokenizers`, loading the saved tokenizer.json,
//                      gives other ids than Kiln (must be 0)
// Compare with SentencePiece's Unigram trainer (vocab 8000, 2 threads) run on the same FILE at the same time.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadTokenizer, readTextLines, saveTokenizer, trainUnigram } from "../src/text/index.js";

interface HfEncoding {
  getIds(): number[];
}
interface HfTokenizer {
  encodeBatch(texts: string[]): Promise<HfEncoding[]>;
}
interface HfModule {
  Tokenizer: { fromFile(path: string): HfTokenizer };
}

export async function run(args: string[]): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "kiln-bench-tokenizer-"));
  try {
    const file = args[0] ?? join(work, "sotu.txt");
    // Written by a child process, so that this process's peak memory is the tokenizer's alone.
    if (args[0] === undefined) {
      const sotu = new URL("../src/data/sotu.js", import.meta.url).href;
      execFileSync(process.execPath, [
        "--input-type=module",
        "-e",
        `(await import(${JSON.stringify(sotu)})).writeSotuCorpus(${JSON.stringify(file)})`,
      ]);
    }
    const vocabSize = Number(args[1] ?? 8000);

    const t0 = performance.now();
    const trained = await trainUnigram(readTextLines([file]), { vocabSize });
    const trainSeconds = (performance.now() - t0) / 1000;
    const peakMb = process.resourceUsage().maxRSS / 1024;
    const dir = join(work, "tokenizer");
    await saveTokenizer(trained, dir);

    const bytes = readFileSync(file);
    const text = bytes.toString("utf8");
    const lines = text.split("\n").filter((line) => line.length > 0);
    const tokenizer = await loadTokenizer(dir);
    const t1 = performance.now();
    const ours = lines.map((line) => tokenizer.encode(line, { addSpecialTokens: false }));
    const encodeSeconds = (performance.now() - t1) / 1000;
    let tokens = 0;
    for (const ids of ours) tokens += ids.length;
    let chars = 0;
    for (const _ of text) chars++;

    const hf = (createRequire(import.meta.url)("tokenizers") as HfModule).Tokenizer.fromFile(join(dir, "tokenizer.json"));
    const theirs = await hf.encodeBatch(lines);
    let mismatched = 0;
    lines.forEach((line, i) => {
      const a = tokenizer.encode(line),
        b = theirs[i].getIds();
      if (a.length !== b.length || a.some((id, k) => id !== b[k])) mismatched++;
    });

    console.log(
      JSON.stringify({
        bench: "tokenizer",
        file: args[0] ?? "sotu (all speeches)",
        vocab_size: trained.vocabSize,
        train_s: round(trainSeconds, 3),
        chars_per_token: round(chars / tokens, 4),
        peak_mb: round(peakMb, 1),
        encode_mb_per_s: round(bytes.length / 1e6 / encodeSeconds, 2),
        lines: lines.length,
        hf_mismatched_lines: mismatched,
      }),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}
