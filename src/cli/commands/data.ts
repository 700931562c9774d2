// `kiln data prepare`: text files → sharded TFRecord dataset (see src/data/prepare/prepare.ts).
import { UsageError, checkOutputFlag } from "../args.js";
import { flagTable, helpText, readFlags } from "../flags.js";
import { didYouMean } from "../nearest.js";
import { isGcsPath } from "../../data/storage/index.js";
import { probeRemote } from "../gcs-paths.js";
import { prepareDataset } from "../../data/prepare/prepare.js";
import { prepareClassification } from "./data-classification.js";
import type { Command } from "./types.js";

const PREPARE = flagTable({
  command: "data prepare",
  usage: "Usage: kiln data prepare --tokenizer DIR --input FILE... --out DIR|gs://bucket/prefix [flags]",
  about: `Tokenizes text (one document per line) with special tokens, concatenates the tokens of each group of
rows, cuts them into chunks of --max-length (dropping each group's remainder) and writes TFRecord
shards of tf.train.Example records (input_ids, attention_mask) to {out}/{split}/dataset-{shard}-{records}.tfrecord.
Shards are written atomically; re-running the same command finishes an interrupted run.

The same shards train both tasks of \`kiln train\`: --task mlm masks them inside the training step, and
--task causal-lm predicts each next token (the shift is done inside the step). Each document is wrapped in
the tokenizer's [CLS] … [SEP], which a causal preset takes as its bos and eos tokens: the model learns where
documents start and end (generation stops at eos), as GPT-2's <|endoftext|> separates its documents. A
chunk may start in the middle of a document, as in transformers' run_clm.py (group_texts).`,
  positionals: "FILE…",
  flags: {
    task: {
      type: "enum",
      values: ["lm", "classification"],
      default: "lm",
      help:
        "lm: text for language models; classification: labelled text from JSON Lines, CSV, TSV\n" +
        "or Parquet (kiln data prepare --task classification --help)",
    },
    tokenizer: { type: "string", value: "DIR", required: true, help: "directory holding tokenizer.json" },
    input: { type: "list", value: "FILE...", help: "input text files, local or gs:// (required; repeat the flag or list several)" },
    out: { type: "string", value: "DIR", required: true, help: "output directory, local or gs://" },
    "max-length": { type: "int", min: 1, default: 128, help: "tokens per record" },
    "shard-size": { type: "int", min: 1, default: 1000, help: "records per shard" },
    "group-size": { type: "int", min: 1, default: 1000, help: "rows concatenated before chunking" },
    split: { type: "string", value: "NAME", default: "train", help: "split that receives the rows" },
    "validation-fraction": {
      type: "number",
      value: "F",
      default: 0,
      help: 'also write a "validation" split with this fraction of the rows',
    },
    "test-fraction": { type: "number", value: "F", default: 0, help: 'also write a "test" split with this fraction of the rows' },
    seed: { type: "int", default: 0, help: "seed of the row-to-split assignment" },
    compression: { type: "enum", values: ["none", "gzip"], default: "none", help: "GZIP-compress shards (.tfrecord.gz)" },
    workers: { type: "int", min: 1, help: "encoder threads (default: cores - 1, at least 1; the main thread\nreads, chunks and writes)" },
    quiet: { type: "bool", help: "no progress bar" },
  },
});

const HELP = `Usage: kiln data <subcommand> [flags]

Subcommands:
  prepare    tokenize text into sharded TFRecord files (kiln data prepare --help)`;

async function prepare(argv: string[]): Promise<void> {
  if (taskOf(argv) === "classification") return prepareClassification(argv);
  const flags = readFlags(PREPARE, argv);
  if (!flags) return;
  const { values, positionals } = flags;
  // `--input a.txt b.txt` leaves b.txt as a positional: every positional is another input.
  const inputs = [...(values.input ?? []), ...positionals];
  if (inputs.length === 0) throw new UsageError(`kiln data prepare: --input is required\n\n${helpText(PREPARE)}`);
  checkOutputFlag("out", values.out);
  if (isGcsPath(values.out)) await probeRemote("out", values.out);

  const result = await prepareDataset({
    tokenizer: values.tokenizer,
    inputs,
    out: values.out,
    maxLength: values["max-length"],
    shardSize: values["shard-size"],
    groupSize: values["group-size"],
    split: values.split,
    validationFraction: values["validation-fraction"],
    testFraction: values["test-fraction"],
    seed: values.seed,
    compression: values.compression,
    ...(values.workers !== undefined ? { workers: values.workers } : {}),
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

/** The value of --task as typed (`--task X` or `--task=X`), which picks the flag table. */
function taskOf(argv: readonly string[]): string | undefined {
  const end = argv.indexOf("--");
  const i = argv.slice(0, end < 0 ? undefined : end).findIndex((a) => a === "--task" || a.startsWith("--task="));
  return i < 0 ? undefined : argv[i]!.startsWith("--task=") ? argv[i]!.slice("--task=".length) : argv[i + 1];
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
    throw new UsageError(`kiln data: unknown subcommand "${sub}"${didYouMean(sub, ["prepare"], (n) => `"${n}"`)}\n\n${HELP}`);
  },
};
