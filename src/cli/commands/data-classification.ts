// `kiln data prepare --task classification`: a table of labelled text → records of their own length
// (see src/data/classification/prepare.ts).
import { checkOutputFlag } from "../args.js";
import { flagTable, readFlags } from "../flags.js";
import { prepareClassificationDataset } from "../../data/classification/prepare.js";
import { TABLE_FORMATS } from "../../data/classification/readers.js";

export const PREPARE_CLASSIFICATION = flagTable({
  command: "data prepare --task classification",
  usage:
    "Usage: kiln data prepare --task classification --tokenizer DIR --input FILE --text-column NAME --label-column NAME\n" +
    "                         --out DIR [flags]",
  about: `Reads labelled text from a JSON Lines, CSV, TSV or Parquet file (one record per line or row; CSV and
TSV with a header line naming the columns), checks every record, tokenizes each text (or text pair) and
writes TFRecord shards of tf.train.Example records to {out}/{split}/: input_ids of the record's own length
(cut to --max-length), token_type_ids for pairs, and label, the class id. String labels get ids in sorted
order; integer labels are their own ids. prepare.json records the label map (id2label, label2id).

Training batches are padded to a multiple of --pad-to-multiple-of and grouped by length, so a model compiles
one program per padded length: at most max-length / pad-to-multiple-of. The lengths this data falls in are
printed.`,
  flags: {
    task: { type: "enum", values: ["lm", "classification"], default: "lm", help: "what the records train" },
    tokenizer: { type: "string", value: "DIR", required: true, help: "directory holding tokenizer.json" },
    input: { type: "string", value: "FILE", required: true, help: "a .jsonl, .csv, .tsv or .parquet file (local)" },
    format: { type: "enum", values: TABLE_FORMATS, help: "the input's format (default: by its extension)" },
    "text-column": { type: "string", value: "NAME", required: true, help: "the column holding the text" },
    "text-pair-column": { type: "string", value: "NAME", help: "a second text per record (sentence pairs), encoded after the first" },
    "label-column": { type: "string", value: "NAME", required: true, help: "the column holding the label (strings or integers)" },
    labels: {
      type: "list",
      value: "A,B,...",
      help: "the classes in id order, e.g. the training split's, for a validation split\n(default: the input's labels, sorted)",
    },
    out: { type: "string", value: "DIR", required: true, help: "output directory" },
    split: { type: "string", value: "NAME", default: "train", help: "the split's directory under --out" },
    "max-length": { type: "int", min: 1, default: 128, help: "tokens a record keeps at most, special tokens included" },
    "pad-to-multiple-of": { type: "int", min: 1, default: 32, help: "batches are padded to a multiple of this many tokens" },
    "shard-size": { type: "int", min: 1, default: 1000, help: "records per shard" },
  },
});

export async function prepareClassification(argv: string[]): Promise<void> {
  const flags = readFlags(PREPARE_CLASSIFICATION, argv);
  if (!flags) return;
  const { values } = flags;
  checkOutputFlag("out", values.out);
  const r = await prepareClassificationDataset({
    input: values.input,
    ...(values.format !== undefined ? { format: values.format } : {}),
    textColumn: values["text-column"],
    ...(values["text-pair-column"] !== undefined ? { textPairColumn: values["text-pair-column"] } : {}),
    labelColumn: values["label-column"],
    ...(values.labels !== undefined ? { labels: values.labels.flatMap((l) => l.split(",")) } : {}),
    tokenizer: values.tokenizer,
    out: values.out,
    split: values.split,
    maxLength: values["max-length"],
    padToMultipleOf: values["pad-to-multiple-of"],
    shardSize: values["shard-size"],
  });
  const m = values["pad-to-multiple-of"];
  const lengths = Object.entries(r.paddedLengths);
  console.log(`${values.split}: ${r.records} records in ${r.shards} shard${r.shards === 1 ? "" : "s"} at ${r.dir}`);
  console.log(
    `labels (${r.labels.kind === "string" ? "strings, ids in sorted order" : "integer class ids"}): ` +
      r.labels.names.map((name, id) => `${id} ${name} (${r.labelCounts[id]})`).join(", "),
  );
  console.log(
    `tokens per record: ${r.lengths.min}–${r.lengths.max}, mean ${r.lengths.mean.toFixed(1)}; ` +
      `${r.truncated} cut to --max-length ${values["max-length"]}`,
  );
  console.log(
    `padded to multiples of ${m}: ${lengths.map(([L, n]) => `${L}: ${n}`).join(", ")} — ` +
      `${lengths.length} batch shape${lengths.length === 1 ? "" : "s"} (at most ${r.paddedLengthBound} at these settings)`,
  );
  console.log(`${r.seconds.toFixed(1)} s`);
}
