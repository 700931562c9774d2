// `kiln data prepare`: text files → sharded TFRecord dataset (see src/data/prepare/prepare.ts).
import { parseFlags, intFlag, numberFlag, UsageError, checkOutputFlag } from "../args.js";
import { isGcsPath } from "../../data/storage/index.js";
import { probeRemote } from "../gcs-paths.js";
import { prepareDataset } from "../../data/prepare/prepare.js";
import type { Command } from "./types.js";

const PREPARE_HELP = `Usage: kiln data prepare --tokenizer DIR --input FILE... --out DIR|gs://bucket/prefix [flags]

Tokenizes text (one document per line) with special tokens, concatenates the tokens of each group of
rows, cuts them into chunks of --max-length (dropping each group's remainder) and writes TFRecord
shards of tf.train.Example records (input_ids, attention_mask) to {out}/{split}/dataset-{shard}-{records}.tfrecord.
Shards are written atomically; re-running the same command finishes an interrupted run.

The same shards train both tasks of \`kiln train\`: --task mlm masks them inside the training step, and
--task causal-lm predicts each next token (the shift is done inside the step). Each document is wrapped in
the tokenizer's [CLS] … [SEP], which a causal preset takes as its bos and eos tokens: the model learns where
documents start and end (generation stops at eos), as GPT-2's <|endoftext|> separates its documents. A
chunk may start in the middle of a document, as in transformers' run_clm.py (group_texts).

Flags:
  --tokenizer DIR             directory holding tokenizer.json (required)
  --input FILE...             input text files, local or gs:// (required; repeat the flag or list several)
  --out DIR                   output directory, local or gs:// (required)
  --max-length N              tokens per record (default 128)
  --shard-size N              records per shard (default 1000)
  --group-size N              rows concatenated before chunking (default 1000)
  --split NAME                split that receives the rows (default train)
  --validation-fraction F     also write a "validation" split with this fraction of the rows (default 0)
  --test-fraction F           also write a "test" split with this fraction of the rows (default 0)
  --seed N                    seed of the row-to-split assignment (default 0)
  --compression none|gzip     GZIP-compress shards (.tfrecord.gz) (default none)
  --workers N                 encoder threads (default: cores - 1, at least 1; the main thread
                              reads, chunks and writes)
  --quiet                     no progress bar`;

const HELP = `Usage: kiln data <subcommand> [flags]

Subcommands:
  prepare    tokenize text into sharded TFRecord files (kiln data prepare --help)`;

async function prepare(argv: string[]): Promise<void> {
  const { values, positionals } = parseFlags("data prepare", argv, {
    tokenizer: { type: "string" },
    input: { type: "string", multiple: true },
    out: { type: "string" },
    "max-length": { type: "string" },
    "shard-size": { type: "string" },
    "group-size": { type: "string" },
    split: { type: "string" },
    "validation-fraction": { type: "string" },
    "test-fraction": { type: "string" },
    seed: { type: "string" },
    compression: { type: "string" },
    workers: { type: "string" },
    quiet: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(PREPARE_HELP);
    return;
  }
  // `--input a.txt b.txt` leaves b.txt as a positional: every positional is another input.
  const inputs = [...(values.input ?? []), ...positionals];
  for (const [flag, value] of [
    ["tokenizer", values.tokenizer],
    ["out", values.out],
  ] as const) {
    if (!value) throw new UsageError(`kiln data prepare: --${flag} is required\n\n${PREPARE_HELP}`);
  }
  if (inputs.length === 0) throw new UsageError(`kiln data prepare: --input is required\n\n${PREPARE_HELP}`);
  const compression = values.compression ?? "none";
  if (compression !== "none" && compression !== "gzip") throw new UsageError(`--compression must be none or gzip, got "${compression}"`);
  checkOutputFlag("out", values.out!);
  if (isGcsPath(values.out!)) await probeRemote("out", values.out!);

  const result = await prepareDataset({
    tokenizer: values.tokenizer!,
    inputs,
    out: values.out!,
    maxLength: intFlag("max-length", values["max-length"], 128, 1),
    shardSize: intFlag("shard-size", values["shard-size"], 1000, 1),
    groupSize: intFlag("group-size", values["group-size"], 1000, 1),
    split: values.split ?? "train",
    validationFraction: numberFlag("validation-fraction", values["validation-fraction"], 0),
    testFraction: numberFlag("test-fraction", values["test-fraction"], 0),
    seed: intFlag("seed", values.seed, 0),
    compression,
    ...(values.workers !== undefined ? { workers: intFlag("workers", values.workers, 1, 1) } : {}),
    ...(values.quiet ? { progress: null } : {}),
  });
  for (const s of result.splits) {
    if (s.damagedShards.length > 0)
      console.log(
        `${s.split}: rewrote ${s.damagedShards.length} damaged shard${s.damagedShards.length === 1 ? "" : "s"} an earlier run left:\n` +
          s.damagedShards.map((d) => `  ${d}`).join("\n"),
      );
    console.log(
      `${s.split}: ${s.records} records in ${s.shardsWritten + s.shardsReused} shards at ${s.dir}` +
        (s.shardsReused > 0 ? ` (${s.shardsReused} already present)` : "") +
        ` — ${s.rows} rows, ${s.tokens} tokens, ${s.droppedTokens} dropped as group remainders`,
    );
  }
  console.log(
    `${(result.inputBytes / 1e6).toFixed(1)} MB of text in ${result.seconds.toFixed(1)} s ` +
      `(${(result.inputBytes / 1e6 / result.seconds).toFixed(1)} MB/s)`,
  );
}

export const dataCommand: Command = {
  name: "data",
  summary: "prepare datasets: kiln data prepare (text → sharded TFRecord files)",
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
      console.log(HELP);
      return;
    }
    if (sub === "prepare") return prepare(rest);
    throw new UsageError(`kiln data: unknown subcommand "${sub}"\n\n${HELP}`);
  },
};
