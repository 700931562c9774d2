// `kiln tokenizer train|encode`: train a Unigram tokenizer on corpus files and write it as a Hugging
// Face tokenizer directory, or encode text with a trained one.
import { rm } from "node:fs/promises";
import { checkOutputFlag, intFlag, numberFlag, parseFlags, UsageError } from "../args.js";
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

const TRAIN_HELP = `Usage: kiln tokenizer train --input FILE... --vocab-size N --out DIR [flags]

Trains a Unigram tokenizer (SentencePiece's algorithm) and writes DIR/tokenizer.json (Hugging Face
format), tokenizer_config.json and special_tokens_map.json.

  --input FILE...            corpus files, local or gs:// (downloaded first): plain text, one document
                             per line, or JSON Lines with --text-field; either may be gzip-compressed.
                             Repeat the flag or list several files after it.
  --text-field NAME          read JSON Lines and take the document from this field
  --vocab-size N             vocabulary size, special tokens included (required)
  --model M                  unigram (default), bpe (byte-level, GPT-2's pipeline) or wordpiece (BERT's, cased)
  --out DIR                  where to write the tokenizer, local or gs://bucket/prefix (required)
  --special-tokens A,B,...   special tokens, ids 0.. in this order (default ${DEFAULT_SPECIAL_TOKENS.join(",")})
  --unk-token T  --cls-token T  --sep-token T  --pad-token T  --mask-token T
                             which special token plays each role (defaults ${Object.values(DEFAULT_ROLES).join(" ")})
  --max-piece-length N       longest piece in characters (default 16)
  --character-coverage X     share of character occurrences that must get their own piece; rarer
                             characters become <unk> (default 1)
  --model-max-length N       longest model input, written for transformers (default 512)`;

const ENCODE_HELP = `Usage: kiln tokenizer encode --tokenizer DIR [--no-special-tokens] TEXT...

Prints one JSON line per TEXT: its ids and tokens.

  --tokenizer DIR            a directory written by \`kiln tokenizer train\`, local or gs://
  --no-special-tokens        leave out [CLS] and [SEP]`;

const HELP = `Usage: kiln tokenizer <train|encode> [flags]

  train    train a Unigram tokenizer on corpus files
  encode   encode text with a trained tokenizer

Run \`kiln tokenizer train --help\` or \`kiln tokenizer encode --help\` for their flags.`;

function required(command: string, name: string, value: string | undefined): string {
  if (value === undefined || value === "")
    throw new UsageError(`kiln ${command}: --${name} is required\nRun \`kiln ${command} --help\` for the flags it takes.`);
  return value;
}

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
  const { values, positionals } = parseFlags(command, argv, {
    help: { type: "boolean", short: "h" },
    input: { type: "string", multiple: true },
    "text-field": { type: "string" },
    "vocab-size": { type: "string" },
    out: { type: "string" },
    "special-tokens": { type: "string" },
    "unk-token": { type: "string" },
    "cls-token": { type: "string" },
    "sep-token": { type: "string" },
    "pad-token": { type: "string" },
    "mask-token": { type: "string" },
    "max-piece-length": { type: "string" },
    "character-coverage": { type: "string" },
    "model-max-length": { type: "string" },
    model: { type: "string" },
  });
  if (values.help) {
    console.log(TRAIN_HELP);
    return;
  }
  const inputs = [...(values.input ?? []), ...positionals];
  if (inputs.length === 0)
    throw new UsageError(
      `kiln ${command}: no input files; name them with --input FILE...\nRun \`kiln ${command} --help\` for the flags it takes.`,
    );
  const vocabSize = intFlag("vocab-size", required(command, "vocab-size", values["vocab-size"]), 0, 1);
  const out = required(command, "out", values.out);
  const specialTokens = values["special-tokens"] === undefined ? undefined : values["special-tokens"].split(",").map((t) => t.trim());
  if (specialTokens?.some((t) => t === ""))
    throw new UsageError(`--special-tokens has an empty entry in "${values["special-tokens"]}"; separate tokens with single commas`);
  const coverage = numberFlag("character-coverage", values["character-coverage"], 1);
  if (!(coverage > 0 && coverage <= 1))
    throw new UsageError(`--character-coverage must be in (0, 1], got "${values["character-coverage"]}"`);
  const modelMaxLength = intFlag("model-max-length", values["model-max-length"], 512, 1);
  checkOutputFlag("out", out);
  // A gs:// output is written to a local stand-in and uploaded at the end; it is probed now, so that a
  // bucket that cannot be reached fails before training.
  const remote = isGcsPath(out);
  if (remote) await probeRemote("out", out);
  const localOut = remote ? localStandIn(out, "outputs") : out;
  const localInputs: string[] = [];
  for (const input of inputs) localInputs.push(await localInputFile("input", input));

  const model = values.model ?? "unigram";
  if (model !== "unigram" && model !== "bpe" && model !== "wordpiece")
    throw new UsageError(`--model must be unigram, bpe or wordpiece, got "${model}"`);
  const trainer =
    model === "unigram" ? trainUnigram : (lines: AsyncIterable<string>, o: UnigramTrainOptions) => trainMergeModel(model, lines, o);
  const progress = progressPrinter();
  let tokenizer;
  try {
    tokenizer = await trainer(readTextLines(localInputs, { textField: values["text-field"] }), {
      vocabSize,
      specialTokens,
      roles: {
        unk: values["unk-token"] ?? DEFAULT_ROLES.unk,
        cls: values["cls-token"] ?? DEFAULT_ROLES.cls,
        sep: values["sep-token"] ?? DEFAULT_ROLES.sep,
        pad: values["pad-token"] ?? DEFAULT_ROLES.pad,
        mask: values["mask-token"] ?? DEFAULT_ROLES.mask,
      },
      maxPieceLength: intFlag("max-piece-length", values["max-piece-length"], 16, 1),
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
  const { values, positionals } = parseFlags(command, argv, {
    help: { type: "boolean", short: "h" },
    tokenizer: { type: "string" },
    "no-special-tokens": { type: "boolean" },
  });
  if (values.help) {
    console.log(ENCODE_HELP);
    return;
  }
  const dir = required(command, "tokenizer", values.tokenizer);
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
    throw new UsageError(`kiln tokenizer: unknown subcommand "${sub}"\n\n${HELP}`);
  },
};
