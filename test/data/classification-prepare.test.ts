import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepareClassificationDataset, type ClassificationPrepareOptions } from "../../src/data/classification/prepare.js";
import { decodeClassificationRecord, type ClassificationRecord } from "../../src/data/classification/record-layout.js";
import { ClassificationInputError } from "../../src/data/classification/input-error.js";
import { readRecords } from "../../src/data/tfrecord/files.js";
import { OptionError } from "../../src/core/option-error.js";
import { loadTokenizer } from "../../src/text/index.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { fixture } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/temp-dir.js";

const corpus = await makeTestCorpus(2, 500);
const tokenizer = await loadTokenizer(corpus.tokenizerDir);
const work = tempDir("kiln-classification-");
let runs = 0;

function file(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

function prepare(extra: Partial<ClassificationPrepareOptions> & { input: string }) {
  return prepareClassificationDataset({
    textColumn: "text",
    labelColumn: "label",
    tokenizer: corpus.tokenizerDir,
    out: join(work, `out-${runs++}`),
    ...extra,
  });
}

/** The records of a prepared split, in shard order. */
async function records(dir: string): Promise<ClassificationRecord[]> {
  const index = (n: string) => Number(/^dataset-(\d+)-/.exec(n)![1]);
  const shards = readdirSync(dir)
    .filter((n) => n.endsWith(".tfrecord"))
    .sort((a, b) => index(a) - index(b));
  const out: ClassificationRecord[] = [];
  for (const shard of shards) for await (const r of readRecords(join(dir, shard))) out.push(decodeClassificationRecord(r));
  return out;
}

const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "prepare.json"), "utf8"));

const TEXTS = ["The economy grew.", "Congress passed the bill, at last.", "We will defend our nation.", "Taxes fell", 'Peace, "at home"'];
const LABELS = ["pos", "neg", "pos", "neutral", "neg"];

test("JSON Lines: records keep their own length, string labels get sorted ids, prepare.json has the map", async () => {
  const input = file("a.jsonl", TEXTS.map((text, i) => JSON.stringify({ text, label: LABELS[i], extra: i })).join("\n") + "\n\n");
  const r = await prepare({ input, shardSize: 2 });
  assert.equal(r.records, 5);
  assert.equal(r.shards, 3);
  assert.deepEqual(r.labels, { kind: "string", names: ["neg", "neutral", "pos"] });
  assert.deepEqual(r.labelCounts, [2, 1, 2]);
  const got = await records(r.dir);
  assert.deepEqual(
    got.map((x) => [...x.inputIds]),
    TEXTS.map((t) => tokenizer.encode(t)),
  );
  assert.deepEqual(
    got.map((x) => x.label),
    [2, 0, 2, 1, 0],
  );
  assert.ok(got.every((x) => x.tokenTypeIds === undefined));
  const m = manifest(r.dir);
  assert.equal(m.complete, true);
  assert.equal(m.settings.task, "classification");
  assert.deepEqual(m.labels.id2label, { "0": "neg", "1": "neutral", "2": "pos" });
  assert.deepEqual(m.labels.label2id, { neg: 0, neutral: 1, pos: 2 });
  assert.equal(m.records, 5);
  const lengths = got.map((x) => x.inputIds.length);
  assert.deepEqual(m.lengths, { min: Math.min(...lengths), max: Math.max(...lengths), mean: lengths.reduce((a, b) => a + b) / 5 });
  assert.deepEqual(m.paddedLengths, { "32": 5 });
  assert.equal(m.paddedLengthBound, 4);
});

test("CSV: quoted commas, quotes and line breaks; integer labels are their own ids", async () => {
  const input = file("b.csv", 'id,text,label\n1,"Hello, world",2\n2,"She said ""no""\nand left",0\n3,6" tall,2\n');
  const r = await prepare({ input });
  assert.deepEqual(r.labels, { kind: "integer", names: ["0", "1", "2"] });
  assert.deepEqual(r.labelCounts, [1, 0, 2]);
  const got = await records(r.dir);
  assert.deepEqual(
    got.map((x) => [...x.inputIds]),
    ["Hello, world", 'She said "no"\nand left', '6" tall'].map((t) => tokenizer.encode(t)),
  );
  assert.deepEqual(
    got.map((x) => x.label),
    [2, 0, 2],
  );
});

test("CSV: a label column of digits and words is of strings", async () => {
  const input = file("c.csv", "text,label\nfirst,1\nsecond,two\nthird,10\n");
  const r = await prepare({ input });
  assert.deepEqual(r.labels, { kind: "string", names: ["1", "10", "two"] });
});

test("TSV with a text pair: [CLS] A [SEP] B [SEP] with token types 0 then 1", async () => {
  const input = file(
    "d.tsv",
    "premise\thypothesis\tgold\nA man sleeps.\tSomeone rests.\tentailment\nIt rains.\tThe sun shines.\tcontradiction\n",
  );
  const r = await prepare({ input, textColumn: "premise", textPairColumn: "hypothesis", labelColumn: "gold" });
  const got = await records(r.dir);
  const pairs = [
    ["A man sleeps.", "Someone rests."],
    ["It rains.", "The sun shines."],
  ] as const;
  pairs.forEach(([a, b], i) => {
    const first = tokenizer.encode(a);
    const second = [...tokenizer.encode(b, { addSpecialTokens: false }), tokenizer.sepId];
    assert.deepEqual([...got[i]!.inputIds], [...first, ...second]);
    assert.deepEqual([...got[i]!.tokenTypeIds!], [...first.map(() => 0), ...second.map(() => 1)]);
  });
  assert.deepEqual(
    got.map((x) => x.label),
    [1, 0],
  );
});

test("Parquet (pyarrow-written: Snappy, several row groups) gives the same records as its JSON Lines twin", async () => {
  const options = { textColumn: "review", textPairColumn: "answer", labelColumn: "stars", maxLength: 16, padToMultipleOf: 8 };
  const fromParquet = await prepare({ input: fixture("classification/reviews.parquet"), ...options });
  const fromJsonl = await prepare({ input: fixture("classification/reviews.jsonl"), ...options });
  assert.equal(fromParquet.records, 41);
  assert.deepEqual(await records(fromParquet.dir), await records(fromJsonl.dir));
  for (const codec of ["gzip", "brotli"]) {
    const other = await prepare({ input: fixture(`classification/reviews-${codec}.parquet`), ...options });
    assert.deepEqual(await records(other.dir), await records(fromJsonl.dir), codec);
  }
  assert.deepEqual(fromParquet.labels, { kind: "integer", names: ["0", "1", "2", "3", "4", "5"] });
  assert.ok(fromParquet.truncated > 0, "some reviews are longer than 16 tokens");
  const strings = await prepare({ input: fixture("classification/reviews.parquet"), textColumn: "review", labelColumn: "sentiment" });
  assert.deepEqual(strings.labels.names, ["negative", "positive"]);
  assert.deepEqual(strings.labelCounts, [14, 27]);
});

test("too long records are cut to maxLength, keeping the special tokens; pairs lose from the longer part first", async () => {
  const long = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen";
  const input = file("e.jsonl", [JSON.stringify({ text: long, pair: "The nation", label: "x" })].join("\n"));
  const single = await prepare({ input, maxLength: 8 });
  const [s] = await records(single.dir);
  const plain = tokenizer.encode(long, { addSpecialTokens: false });
  assert.deepEqual([...s!.inputIds], [tokenizer.clsId, ...plain.slice(0, 6), tokenizer.sepId]);
  assert.equal(single.truncated, 1);
  const pair = await prepare({ input, textPairColumn: "pair", maxLength: 10 });
  const [p] = await records(pair.dir);
  const b = tokenizer.encode("The nation", { addSpecialTokens: false });
  // 7 tokens of text: the short pair whole, the long text the rest (tokenizers' "longest_first").
  assert.ok(b.length <= 3, `"The nation" is ${b.length} tokens`);
  const [keepA, keepB] = [7 - b.length, b.length];
  assert.deepEqual([...p!.inputIds], [tokenizer.clsId, ...plain.slice(0, keepA), tokenizer.sepId, ...b.slice(0, keepB), tokenizer.sepId]);
  assert.deepEqual([...p!.tokenTypeIds!], [...new Array<number>(keepA + 2).fill(0), ...new Array<number>(keepB + 1).fill(1)]);
  assert.equal(p!.inputIds.length, 10);
});

async function refused(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (e: Error) => {
    assert.ok(e instanceof ClassificationInputError, `${e.name}: ${e.message}`);
    assert.match(e.message, pattern);
    return true;
  });
}

test("bad records are refused naming the file, the line or row, the column and the fix", async () => {
  const jsonl = (name: string, rows: unknown[]) => file(name, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  await refused(
    prepare({
      input: jsonl("m.jsonl", [
        { text: "a", label: "x" },
        { txt: "b", label: "y" },
      ]),
    }),
    /m\.jsonl: line 2, column "text": is missing \(the record has "txt", "label"\)/,
  );
  await refused(
    prepare({
      input: jsonl("n.jsonl", [
        { text: "a", label: "x" },
        { text: "  ", label: "y" },
      ]),
    }),
    /n\.jsonl: line 2, column "text": the text is empty\. Give every record/,
  );
  await refused(
    prepare({ input: jsonl("o.jsonl", [{ text: 5, label: "x" }]) }),
    /line 1, column "text": the text is a number, not a string/,
  );
  await refused(
    prepare({ input: jsonl("p.jsonl", [{ text: "a", label: true }]) }),
    /line 1, column "label": the label is a boolean, a type labels cannot have\. Labels are strings/,
  );
  await refused(prepare({ input: jsonl("q.jsonl", [{ text: "a", label: 1.5 }]) }), /column "label": the label 1\.5 is not an integer/);
  await refused(prepare({ input: jsonl("r.jsonl", [{ text: "a", label: -1 }]) }), /the label -1 is negative/);
  await refused(
    prepare({
      input: jsonl("s.jsonl", [
        { text: "a", label: "x" },
        { text: "b", label: 1 },
      ]),
    }),
    /line 2, column "label": the label is a number, but at line 1 it is a string/,
  );
  await refused(prepare({ input: jsonl("t.jsonl", [{ text: "a" }]) }), /line 1, column "label": is missing/);
  await refused(prepare({ input: file("u.jsonl", '{"text": "a", "label": "x"}\n{"text": "b",\n') }), /u\.jsonl: line 2: is not valid JSON/);
  await refused(prepare({ input: file("v.jsonl", '["a", "x"]\n') }), /line 1: is an array, not a JSON object/);
  await refused(
    prepare({ input: file("w.csv", "words,label\na,x\n") }),
    /w\.csv: line 2, column "text": is missing \(the record has "words", "label"\)/,
  );
  await refused(prepare({ input: file("x.csv", "text,label\na,x\n,y\n") }), /x\.csv: line 3, column "text": the text is empty/);
  // A record placed by the line it starts on, after a quoted field that spans three lines.
  await refused(
    prepare({ input: file("ml.csv", 'text,label\n"multi\nline\nfield",a\nok,b\n,c\n') }),
    /ml\.csv: line 6, column "text": the text is empty/,
  );
  await refused(
    prepare({ input: file("ml2.csv", 'text,label\nok,b\n"multi\nline\nfield",\n') }),
    /ml2\.csv: line 3, column "label": the label is empty/,
  );
  await refused(prepare({ input: file("y.csv", "text,label\na,x,extra\n") }), /y\.csv: line 2: is not valid CSV/);
  await refused(prepare({ input: file("z.csv", "text,label\n") }), /z\.csv: the whole file: holds no records/);
  await refused(
    prepare({ input: fixture("classification/null-text.parquet"), textColumn: "review", labelColumn: "stars" }),
    /null-text\.parquet: row 1, column "review": the text is null, not a string/,
  );
  await refused(
    prepare({ input: fixture("classification/reviews.parquet"), textColumn: "body", labelColumn: "stars" }),
    /reviews\.parquet: the schema, column "body": is not a column of the file \(its columns: review, answer, sentiment, stars\)/,
  );
});

test("wrong settings are OptionErrors naming the option", async () => {
  const input = file("ok.jsonl", '{"text": "a", "label": "x"}\n');
  const option = (name: string, pattern: RegExp) => (e: Error) => {
    assert.ok(e instanceof OptionError, e.message);
    assert.equal(e.option, name);
    assert.match(e.message, pattern);
    return true;
  };
  await assert.rejects(prepare({ input, textColumn: "" }), option("textColumn", /is required/));
  await assert.rejects(prepare({ input, textPairColumn: "text" }), option("textPairColumn", /same column/));
  await assert.rejects(prepare({ input: file("data.txt", "x") }), option("format", /does not say whether/));
  await assert.rejects(prepare({ input, format: "xml" as never }), option("format", /xml/));
  await assert.rejects(prepare({ input: join(work, "absent.csv") }), option("input", /does not exist/));
  await assert.rejects(prepare({ input, maxLength: 2 }), option("maxLength", /leaves no room/));
  await assert.rejects(prepare({ input, padToMultipleOf: 0 }), option("padToMultipleOf", /positive/));
  await assert.rejects(prepare({ input, labelColum: "label" } as never), option("labelColum", /labelColumn/));
  // A format given explicitly overrides the extension.
  const r = await prepare({ input: file("data.txt", "text\tlabel\nhello\tx\n"), format: "tsv" });
  assert.equal(r.records, 1);
  // Prepared output is not overwritten.
  const out = join(work, "twice");
  await prepareClassificationDataset({ input, textColumn: "text", labelColumn: "label", tokenizer: corpus.tokenizerDir, out });
  await assert.rejects(
    prepareClassificationDataset({ input, textColumn: "text", labelColumn: "label", tokenizer: corpus.tokenizerDir, out }),
    option("out", /already holds prepared data/),
  );
});

test("labels gives a validation split the training split's ids, even when it lacks a class", async () => {
  const train = await prepare({
    input: file("train.jsonl", ["b", "a", "c"].map((label) => JSON.stringify({ text: "x", label })).join("\n")),
  });
  const input = file("validation.jsonl", ["c", "a"].map((label) => JSON.stringify({ text: "y", label })).join("\n"));
  const alone = await prepare({ input });
  assert.deepEqual(alone.labels.names, ["a", "c"], "on its own, c would be class 1");
  const validation = await prepare({ input, labels: train.labels.names });
  assert.deepEqual(validation.labels.names, ["a", "b", "c"]);
  assert.deepEqual(
    (await records(validation.dir)).map((r) => r.label),
    [2, 0],
  );
  assert.deepEqual(manifest(validation.dir).labels.id2label, { "0": "a", "1": "b", "2": "c" });
  await assert.rejects(
    prepare({ input, labels: ["a", "b"] }),
    (e: Error) => e instanceof OptionError && e.option === "labels" && /does not hold the label "c" of .*validation\.jsonl/.test(e.message),
  );
  await assert.rejects(prepare({ input, labels: ["a", "a"] }), (e: Error) => e instanceof OptionError && e.option === "labels");
});

test("an interrupted prepare is refused by the reader and finished by running it again", async () => {
  const { openClassificationDataset } = await import("../../src/data/pipeline/classification-dataset.js");
  const input = file("again.jsonl", ["a", "b", "a"].map((label, i) => JSON.stringify({ text: `text ${i}`, label })).join("\n"));
  const out = join(work, "again");
  const first = await prepareClassificationDataset({
    input,
    textColumn: "text",
    labelColumn: "label",
    tokenizer: corpus.tokenizerDir,
    out,
  });
  const before = await records(first.dir);
  // As a run killed while writing leaves it: prepare.json not complete, a shard of its own.
  const m = manifest(first.dir);
  writeFileSync(join(first.dir, "prepare.json"), JSON.stringify({ settings: m.settings, complete: false }));
  writeFileSync(join(first.dir, "dataset-7-1.tfrecord"), "");
  await assert.rejects(openClassificationDataset({ files: first.dir, batchSize: 2 }), /unfinished data prepare output/);
  const again = await prepareClassificationDataset({
    input,
    textColumn: "text",
    labelColumn: "label",
    tokenizer: corpus.tokenizerDir,
    out,
  });
  assert.deepEqual(readdirSync(again.dir).sort(), ["dataset-0-3.tfrecord", "prepare.json"]);
  assert.deepEqual(await records(again.dir), before);
  assert.equal(manifest(again.dir).complete, true);
});
