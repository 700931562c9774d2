// `kiln tokenizer train|encode`: train a Unigram tokenizer on corpus files and write it as a Hugging
// Face tokenizer directory, or encode text with a trained one.
import { rm } from "node:fs/promises";
import { checkOutputFlag, UsageError } from "../args.js";
import { flagTable, readFlags } from "../flags.js";
import { didYouMean } from "../nearest.js";
import { isGcsPath } from "../../data/storage/index.js";
import { localStandIn } from "../../data/storage/transfer.js";
import { localInputDir, localInputFile, probeRemote, publishDir } from "../gcs-paths.js";
import {
  DEFAULT_ROLES,
  DEFAULT_SPECIAL_TOKENS,
  loadTokenizer,
  readTextLines,
  saveTokenizer,
  trainMergeModel,
  trainUnigram,
  type TrainProgress,
  type UnigramTrainOptions,
} from "../../text/index.js";
import type { Command } from "./types.js";

const TRAIN = flagTable({
  command: "tokenizer train",
  usage: "Usage: kiln tokenizer train --input FILE... --vocab-size N --out DIR [flags]",
  about: `Trains a Unigram tokenizer (SentencePiece's algorithm) and writes DIR/tokenizer.json (Hugging Face
format), tokenizer_config.json and special_tokens_map.json.`,
  positionals: "FILE…",
  flags: {
    input: {
      type: "list",
      value: "FILE...",
      help:
        "corpus files, local or gs:// (downloaded first): plain text, one document\n" +
        "per line, or JSON Lines with --text-field; either may be gzip-compressed.\n" +
        "Repeat the flag or list several files after it.",
    },
    "text-field": { type: "string", value: "NAME", help: "read JSON Lines and take the document from this field" },
    "vocab-size": { type: "int", min: 1, required: true, help: "vocabulary size, special tokens included" },
    model: {
      type: "enum",
      values: ["unigram", "bpe", "wordpiece"],
      default: "unigram",
      value: "M",
      help: "unigram (default, SentencePiece's algorithm), bpe (byte-level, GPT-2's pipeline) or wordpiece (BERT's, cased)",
    },
    out: { type: "string", value: "DIR", required: true, help: "where to write the tokenizer, local or gs://bucket/prefix" },
    "special-tokens": {
      type: "string",
      value: "A,B,...",
      default: DEFAULT_SPECIAL_TOKENS.join(","),
      help: "special tokens, ids 0.. in this order",
      check: (v) => (v.split(",").some((t) => t.trim() === "") ? "has an empty entry; separate tokens with single commas" : undefined),
    },
    "unk-token": { type: "string", value: "T", default: DEFAULT_ROLES.unk, help: "the special token that plays unk" },
    "cls-token": { type: "string", value: "T", default: DEFAULT_ROLES.cls, help: "the special token that plays cls" },
    "sep-token": { type: "string", value: "T", default: DEFAULT_ROLES.sep, help: "the special token that plays sep" },
    "pad-token": { type: "string", value: "T", default: DEFAULT_ROLES.pad, help: "the special token that plays pad" },
    "mask-token": { type: "string", value: "T", default: DEFAULT_ROLES.mask, help: "the special token that plays mask" },
    "max-piece-length": { type: "int", min: 1, default: 16, help: "longest piece in characters" },
    "character-coverage": {
      type: "number",
      default: 1,
      help: "share of character occurrences that must get their own piece; rarer\ncharacters become <unk>",
      check: (v) => (v > 0 && v <= 1 ? undefined : "must be in (0, 1]"),
    },
    "model-max-length": { type: "int", min: 1, default: 512, help: "longest model input, written for transformers" },
  },
});

const ENCODE = flagTable({
  command: "tokenizer encode",
  usage: "Usage: kiln tokenizer encode --tokenizer DIR [--no-special-tokens] TEXT...",
  about: "Prints one JSON line per TEXT: its ids and tokens.",
  positionals: "TEXT…",
  flags: {
    tokenizer: { type: "string", value: "DIR", required: true, help: "a directory written by `kiln tokenizer train`, local or gs://" },
    "no-special-tokens": { type: "bool", help: "leave out [CLS] and [SEP]" },
  },
});

const HELP = `Usage: kiln tokenizer <train|encode> [flags]

  train    train a Unigram tokenizer on corpus files
  encode   encode text with a trained tokenizer

Run \`kiln tokenizer train --help\` or \`kiln tokenizer encode --help\` for their flags.`;

/**
 * Prints one line per training step on stderr. While the corpus is read, a terminal sees the running
 * counts redrawn in place (at most ten times a second); a log gets the final counts only.
 */
function progressPrinter(): { onProgress: (p: TrainProgress) => void; finish: () => void } {
  const tty = process.stderr.isTTY === true;
  const started = performance.now();
  let counting = "";
  let lastDraw = 0;
  const n = (x: number) => x.toLocaleString("en-US");
  const stamp = (line: string) => `[${((performance.now() - started) / 1000).toFixed(1)}s] ${line}`;
  const describe = (p: TrainProgress): string => {
    switch (p.phase) {
      case "count":
        return `reading: ${n(p.documents)} documents, ${n(p.words)} words (${n(p.distinctWords)} distinct)`;
      case "seed":
        return `seeding: ${n(p.pieces)} seed pieces from ${n(p.distinctWords)} distinct words, ${n(p.characters)} characters`;
      case "em":
        return `EM round ${p.round} of about ${p.expectedRounds}: ${n(p.pieces)} pieces, objective ${p.objective.toFixed(4)}`;
      case "done":
        return `done: ${n(p.vocabSize)} tokens`;
    }
  };
  const endCounting = () => {
    if (counting) process.stderr.write(tty ? `\r\x1b[K${stamp(counting)}\n` : `${stamp(counting)}\n`);
    counting = "";
  };
  return {
    onProgress(p) {
      if (p.phase === "count") {
        counting = describe(p);
        const now = performance.now();
        if (tty && now - lastDraw >= 100) {
          process.stderr.write(`\r\x1b[K${stamp(counting)}`);
          lastDraw = now;
        }
        return;
      }
      endCounting();
      process.stderr.write(`${stamp(describe(p))}\n`);
    },
    finish: endCounting,
  };
}

async function train(argv: string[]): Promise<void> {
  const command = "tokenizer train";
  const flags = readFlags(TRAIN, argv);
  if (!flags) return;
  const { values, positionals } = flags;
  const inputs = [...(values.input ?? []), ...positionals];
  if (inputs.length === 0)
    throw new UsageError(
      `kiln ${command}: no input files; name them with --input FILE...\nRun \`kiln ${command} --help\` for the flags it takes.`,
    );
  const vocabSize = values["vocab-size"];
  const out = values.out;
  const specialTokens = flags.given.has("special-tokens") ? values["special-tokens"].split(",").map((t) => t.trim()) : undefined;
  const coverage = values["character-coverage"];
  const modelMaxLength = values["model-max-length"];
  checkOutputFlag("out", out);
  // A gs:// output is written to a local stand-in and uploaded at the end; it is probed now, so that a
  // bucket that cannot be reached fails before training.
  const remote = isGcsPath(out);
  if (remote) await probeRemote("out", out);
  const localOut = remote ? localStandIn(out, "outputs") : out;
  const localInputs: string[] = [];
  for (const input of inputs) localInputs.push(await localInputFile("input", input));

  const model = values.model;
  const trainer =
    model === "unigram" ? trainUnigram : (lines: AsyncIterable<string>, o: UnigramTrainOptions) => trainMergeModel(model, lines, o);
  const progress = progressPrinter();
  let tokenizer;
  try {
    tokenizer = await trainer(readTextLines(localInputs, { textField: values["text-field"] }), {
      vocabSize,
      specialTokens,
      roles: {
        unk: values["unk-token"],
        cls: values["cls-token"],
        sep: values["sep-token"],
        pad: values["pad-token"],
        mask: values["mask-token"],
      },
      maxPieceLength: values["max-piece-length"],
      characterCoverage: coverage,
      onProgress: progress.onProgress,
    });
  } finally {
    progress.finish();
  }
  if (remote) await rm(localOut, { recursive: true, force: true });
  await saveTokenizer(tokenizer, localOut, { modelMaxLength });
  if (remote) await publishDir("out", localOut, out);
  if (tokenizer.vocabSize < vocabSize) {
    console.error(`note: the corpus yields only ${tokenizer.vocabSize} distinct pieces, fewer than --vocab-size ${vocabSize}`);
  }
  console.error(`wrote ${out}/tokenizer.json, tokenizer_config.json, special_tokens_map.json (vocab ${tokenizer.vocabSize})`);
}

async function encode(argv: string[]): Promise<void> {
  const command = "tokenizer encode";
  const flags = readFlags(ENCODE, argv);
  if (!flags) return;
  const { values, positionals } = flags;
  const dir = values.tokenizer;
  if (positionals.length === 0)
    throw new UsageError(`kiln ${command}: give the text to encode as an argument\nRun \`kiln ${command} --help\` for the flags it takes.`);
  const tokenizer = await loadTokenizer(await localInputDir("tokenizer", dir));
  for (const text of positionals) {
    const ids = tokenizer.encode(text, { addSpecialTokens: !values["no-special-tokens"] });
    console.log(JSON.stringify({ ids, tokens: ids.map((id) => tokenizer.idToToken(id)) }));
  }
}

export const tokenizerCommand: Command = {
  name: "tokenizer",
  summary: "train a Unigram tokenizer (Hugging Face tokenizer.json) or encode text with one",
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === "train") return train(rest);
    if (sub === "encode") return encode(rest);
    if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
      console.log(HELP);
      return;
    }
    throw new UsageError(`kiln tokenizer: unknown subcommand "${sub}"${didYouMean(sub, ["train", "encode"], (n) => `"${n}"`)}\n\n${HELP}`);
  },
};
