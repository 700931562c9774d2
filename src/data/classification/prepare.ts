// `data prepare --task classification`: a table of labelled text (JSON Lines, CSV, TSV or Parquet) →
// tokenized records of their own length, with class ids, in TFRecord shards under `{out}/{split}/`.
//
// Two passes over the input: the first checks every record (columns present, text non-empty, labels of
// one kind) and collects the labels, so a bad record is reported before any work and the label map
// (sorted string labels, or integer class ids) is known before the first record is written; the second
// tokenizes and writes. prepare.json records the settings, the label map, the record lengths and how
// many records fall in each padded length: the shapes a model compiled on these batches will see.
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import { checkOptions } from "../../core/check-options.js";
import { OptionError } from "../../core/option-error.js";
import { loadTokenizer, type Tokenizer } from "../../text/index.js";
import { joinPath, isGcsPath, storageFor } from "../storage/index.js";
import { MANIFEST, readManifest } from "../prepare/manifest.js";
import { ClassificationInputError } from "./input-error.js";
import { LabelCollector, labelIds, labelMapJson, type LabelMap } from "./label-map.js";
import { readTable, resolveFormat, TABLE_FORMATS, type TableFormat, type TableRow } from "./readers.js";
import { encodeClassificationRecord } from "./record-layout.js";
import { RecordShardWriter } from "./record-shard-writer.js";
import { paddedLength, paddedLengthBound } from "./padded-length.js";

/** Options of prepareClassificationDataset: the input table, its columns, the tokenizer, output and max length. */
export interface ClassificationPrepareOptions {
  /** A local JSON Lines, CSV, TSV or Parquet file. */
  input: string;
  /** The input's format; by default taken from its extension (.jsonl, .csv, .tsv, .parquet). */
  format?: TableFormat;
  /** The column (field) holding the text. */
  textColumn: string;
  /** A second text per record (sentence pairs: entailment, paraphrase); encoded after the first. */
  textPairColumn?: string;
  /** The column holding the label: strings, or integer class ids. */
  labelColumn: string;
  /**
   * The classes in id order, when they must not come from this input alone: prepare a validation split
   * with the training split's labels (its prepare.json's id2label), so that one class has one id in both.
   * A record whose label is not in the list is refused. Default: the input's labels, sorted.
   */
  labels?: readonly string[];
  /** Directory holding tokenizer.json. */
  tokenizer: string;
  /** Output directory; the records go to `{out}/{split}/`. */
  out: string;
  /** The split's directory name. Default "train". */
  split?: string;
  /** Tokens a record keeps at most, special tokens included; longer ones are cut. Default 128. */
  maxLength?: number;
  /** Batches are padded to a multiple of this; prepare reports the padded lengths the records fall in. Default 32. */
  padToMultipleOf?: number;
  /** Records per shard. Default 1000. */
  shardSize?: number;
}

export interface ClassificationPrepareResult {
  dir: string;
  records: number;
  /** Records cut to maxLength. */
  truncated: number;
  labels: LabelMap;
  /** Records of each class id. */
  labelCounts: number[];
  lengths: { min: number; max: number; mean: number };
  /** Records per padded length (a multiple of padToMultipleOf): the batch shapes the data gives. */
  paddedLengths: Record<number, number>;
  /** The most padded lengths any data could give at these settings: ceil(maxLength / padToMultipleOf). */
  paddedLengthBound: number;
  shards: number;
  seconds: number;
}

const OPTIONS = [
  "input",
  "format",
  "textColumn",
  "textPairColumn",
  "labelColumn",
  "labels",
  "tokenizer",
  "out",
  "split",
  "maxLength",
  "padToMultipleOf",
  "shardSize",
] as const satisfies readonly (keyof ClassificationPrepareOptions)[];

const WHERE = "prepareClassificationDataset";

/** Turns a labelled table (JSON Lines, CSV/TSV, Parquet) into TFRecord shards of records of their own length. */
export async function prepareClassificationDataset(options: ClassificationPrepareOptions): Promise<ClassificationPrepareResult> {
  const started = performance.now();
  const o = await resolveOptions(options);
  const tokenizer = await openTokenizer(o.tokenizer);
  const tokenizerJson = await storageFor(joinPath(o.tokenizer, "tokenizer.json")).readAll(joinPath(o.tokenizer, "tokenizer.json"));
  const tokenizerSha256 = createHash("sha256").update(tokenizerJson).digest("hex");
  // The template's special tokens alone (of empty texts); each text needs one token more.
  const specials = tokenizer.encodePair("", o.textPairColumn === undefined ? undefined : "").ids.length;
  if (o.maxLength < specials + (o.textPairColumn === undefined ? 1 : 2))
    throw new OptionError({
      where: WHERE,
      option: "maxLength",
      value: o.maxLength,
      why: `leaves no room for text: the tokenizer's special tokens take ${specials}`,
      fix: "Pass a maxLength of 64 or more",
    });
  const columns = [o.textColumn, ...(o.textPairColumn === undefined ? [] : [o.textPairColumn]), o.labelColumn];
  const rows = () => readTable(o.input, o.format, columns);

  // Pass 1: every record checked, labels collected.
  const collector = new LabelCollector(o.format === "csv" || o.format === "tsv");
  let count = 0;
  for await (const row of rows()) {
    checkText(o.input, row, o.textColumn);
    if (o.textPairColumn !== undefined) checkText(o.input, row, o.textPairColumn);
    if (!Object.hasOwn(row.values, o.labelColumn)) throw missingColumn(o.input, row, o.labelColumn);
    collector.add(row.values[o.labelColumn], o.input, row.place, o.labelColumn);
    count++;
  }
  if (count === 0)
    throw new ClassificationInputError(
      o.input,
      "the whole file",
      undefined,
      "holds no records",
      "Pass a file with at least one labelled record",
    );
  const labels = o.labels ? givenLabels(o.labels, collector.finish(), o.input) : collector.finish();
  const idOf = labelIds(labels);

  // Pass 2: tokenize and write.
  const dir = joinPath(o.out, o.split);
  await claimDir(dir);
  const settings = {
    task: "classification",
    inputs: [{ path: o.input, bytes: (await stat(o.input)).size }],
    format: o.format,
    textColumn: o.textColumn,
    textPairColumn: o.textPairColumn ?? null,
    labelColumn: o.labelColumn,
    maxLength: o.maxLength,
    padToMultipleOf: o.padToMultipleOf,
    shardSize: o.shardSize,
    tokenizerSha256,
    padId: tokenizer.padId,
  };
  await writeJson(joinPath(dir, MANIFEST), { settings, complete: false });
  const writer = new RecordShardWriter(dir, o.shardSize);
  const labelCounts = new Array<number>(labels.names.length).fill(0);
  const padded = new Map<number, number>();
  let truncated = 0;
  let min = Infinity;
  let max = 0;
  let total = 0;
  for await (const row of rows()) {
    const text = row.values[o.textColumn] as string;
    const pair = o.textPairColumn === undefined ? undefined : (row.values[o.textPairColumn] as string);
    const encoded = tokenizer.encodePair(text, pair, { maxLength: o.maxLength });
    const label = idOf(row.values[o.labelColumn]);
    const inputIds = Int32Array.from(encoded.ids);
    // Token types are stored for pairs only: a single text's are all 0.
    const tokenTypeIds = pair === undefined ? undefined : Int32Array.from(encoded.typeIds);
    await writer.add(encodeClassificationRecord({ inputIds, ...(tokenTypeIds ? { tokenTypeIds } : {}), label }));
    const n = inputIds.length;
    if (encoded.truncated) truncated++;
    labelCounts[label]!++;
    min = Math.min(min, n);
    max = Math.max(max, n);
    total += n;
    const L = paddedLength(n, o.padToMultipleOf);
    padded.set(L, (padded.get(L) ?? 0) + 1);
  }
  await writer.finish();
  const paddedLengths = Object.fromEntries([...padded].sort(([a], [b]) => a - b));
  const lengths = { min, max, mean: total / writer.records };
  const bound = paddedLengthBound(o.maxLength, o.padToMultipleOf);
  await writeJson(joinPath(dir, MANIFEST), {
    settings,
    complete: true,
    split: o.split,
    records: writer.records,
    truncated,
    labels: labelMapJson(labels, labelCounts),
    lengths,
    paddedLengths,
    paddedLengthBound: bound,
    shards: Object.fromEntries([...writer.digests].sort(([a], [b]) => a.localeCompare(b))),
  });
  return {
    dir,
    records: writer.records,
    truncated,
    labels,
    labelCounts,
    lengths,
    paddedLengths,
    paddedLengthBound: bound,
    shards: writer.digests.size,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The given classes as the label map, once every label of the input is found among them. */
function givenLabels(names: readonly string[], found: LabelMap, input: string): LabelMap {
  const known = new Set(names);
  const missing = found.kind === "integer" ? [] : found.names.filter((n) => !known.has(n));
  if (found.kind === "integer" && found.names.length > names.length) missing.push(String(found.names.length - 1));
  if (missing.length > 0)
    throw new OptionError({
      where: WHERE,
      option: "labels",
      value: [...names],
      why: `does not hold the label${missing.length === 1 ? "" : "s"} ${missing.map((m) => JSON.stringify(m)).join(", ")} of ${input}`,
      fix: "List every class, in id order (a training split's prepare.json has them as id2label)",
    });
  // Integer labels are class ids already; the names only name them.
  return { kind: found.kind === "integer" ? "integer" : "string", names: [...names] };
}

function missingColumn(file: string, row: TableRow, column: string): ClassificationInputError {
  const have = Object.keys(row.values);
  return new ClassificationInputError(
    file,
    row.place,
    column,
    `is missing (the record has ${have.length === 0 ? "no columns" : have.map((c) => `"${c}"`).join(", ")})`,
    "Name a column the records have, or add this one to every record",
  );
}

function checkText(file: string, row: TableRow, column: string): void {
  if (!Object.hasOwn(row.values, column)) throw missingColumn(file, row, column);
  const value = row.values[column];
  const fail = (problem: string) =>
    new ClassificationInputError(
      file,
      row.place,
      column,
      problem,
      "Give every record a non-empty text, or leave out the records without one",
    );
  if (typeof value !== "string") throw fail(`the text is ${value === null ? "null" : `a ${typeof value}`}, not a string`);
  if (value.trim() === "") throw fail("the text is empty");
}

type Resolved = Required<Omit<ClassificationPrepareOptions, "textPairColumn" | "format" | "labels">> & {
  textPairColumn: string | undefined;
  labels: readonly string[] | undefined;
  format: TableFormat;
};

async function resolveOptions(options: ClassificationPrepareOptions): Promise<Resolved> {
  checkOptions(WHERE, options, OPTIONS, {
    strings: ["input", "textColumn", "textPairColumn", "labelColumn", "tokenizer", "out", "split"],
    ints: ["maxLength", "padToMultipleOf", "shardSize"],
    positive: ["maxLength", "padToMultipleOf", "shardSize"],
    choices: { format: [...TABLE_FORMATS, undefined] },
  });
  const fixes: Record<string, string> = {
    input: 'Pass input: a .jsonl, .csv, .tsv or .parquet file, e.g. input: "train.csv"',
    textColumn: 'Pass textColumn: the column holding the text, e.g. textColumn: "text"',
    labelColumn: 'Pass labelColumn: the column holding the label, e.g. labelColumn: "label"',
    tokenizer: "Pass tokenizer: the directory holding tokenizer.json",
    out: "Pass out: the output directory",
  };
  for (const name of ["input", "textColumn", "labelColumn", "tokenizer", "out"] as const)
    if (!options[name]) throw new OptionError({ where: WHERE, option: name, value: options[name], why: "is required", fix: fixes[name]! });
  if (options.textPairColumn !== undefined && [options.textColumn, options.labelColumn].includes(options.textPairColumn))
    throw new OptionError({
      where: WHERE,
      option: "textPairColumn",
      value: options.textPairColumn,
      why: "names the same column as textColumn or labelColumn",
      fix: "Name the column holding the second text of each pair",
    });
  if (options.labelColumn === options.textColumn)
    throw new OptionError({
      where: WHERE,
      option: "labelColumn",
      value: options.labelColumn,
      why: "names the same column as textColumn",
      fix: "Name the column holding the labels",
    });
  if (isGcsPath(options.input))
    throw new OptionError({
      where: WHERE,
      option: "input",
      value: options.input,
      why: "is a gs:// path; classification inputs are read from local files",
      fix: "Copy the file to local disk first (gcloud storage cp)",
    });
  const info = await stat(options.input).catch(() => undefined);
  if (!info?.isFile())
    throw new OptionError({
      where: WHERE,
      option: "input",
      value: options.input,
      why: "does not exist or is not a file",
      fix: fixes.input!,
    });
  if (
    options.labels !== undefined &&
    (!Array.isArray(options.labels) ||
      options.labels.length === 0 ||
      options.labels.some((l) => typeof l !== "string" || l === "") ||
      new Set(options.labels).size !== options.labels.length)
  )
    throw new OptionError({
      where: WHERE,
      option: "labels",
      value: options.labels,
      why: "is not a list of distinct, non-empty class names",
      fix: 'Pass the classes in id order, e.g. labels: ["ham", "spam"]',
    });
  const split = options.split ?? "train";
  if (!/^[A-Za-z0-9_.-]+$/.test(split) || split === "." || split === "..")
    throw new OptionError({
      where: WHERE,
      option: "split",
      value: split,
      why: "is not a plain directory name",
      fix: 'Pass a name like split: "train"',
    });
  return {
    input: options.input,
    format: resolveFormat(options.input, options.format, WHERE),
    textColumn: options.textColumn,
    textPairColumn: options.textPairColumn,
    labelColumn: options.labelColumn,
    labels: options.labels,
    tokenizer: options.tokenizer,
    out: options.out.replace(/\/+$/, "") || "/",
    split,
    maxLength: options.maxLength ?? 128,
    padToMultipleOf: options.padToMultipleOf ?? 32,
    shardSize: options.shardSize ?? 1000,
  };
}

async function openTokenizer(dir: string): Promise<Tokenizer> {
  try {
    return await loadTokenizer(dir);
  } catch (e) {
    throw new OptionError({
      where: WHERE,
      option: "tokenizer",
      value: dir,
      why: `holds no tokenizer that loads (${(e as Error).message})`,
      fix: "Pass the directory holding tokenizer.json",
    });
  }
}

/**
 * Refuses a directory that already holds a finished split or shards of another kind: records of two runs
 * must not mix. What an interrupted classification prepare left (prepare.json says "complete": false) is
 * removed, so running the same command again finishes the work.
 */
async function claimDir(dir: string): Promise<void> {
  const storage = storageFor(dir);
  const shards = await storage.glob(joinPath(dir, "*.tfrecord*"));
  const manifest = await readManifest(dir);
  if (manifest?.complete === false && manifest.settings.task === "classification") {
    for (const path of [...shards, ...(await storage.staleTemporaries(dir))]) await storage.remove(path);
    return;
  }
  if (shards.length > 0 || manifest)
    throw new OptionError({
      where: WHERE,
      option: "out",
      value: dir.slice(0, dir.lastIndexOf("/")),
      why: `already holds prepared data in ${dir}`,
      fix: `Write to a new out directory (or another split), or delete ${dir} to prepare it again`,
    });
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await storageFor(path).writeAtomic(path, new TextEncoder().encode(JSON.stringify(value, null, 2) + "\n"));
}
