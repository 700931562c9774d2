import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Tokenizer } from "tokenizers";
import { prepareDataset, type PrepareOptions } from "../../src/data/prepare/prepare.js";
import { readRecords } from "../../src/data/tfrecord/files.js";
import { decodeExample } from "../../src/data/example/example.js";
import { recordsFromFileName } from "../../src/data/shards.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";

const fixture = await makeTestCorpus(6);
const MAX_LENGTH = 32;

function options(out: string, extra: Partial<PrepareOptions> = {}): PrepareOptions {
  return {
    tokenizer: fixture.tokenizerDir,
    inputs: [fixture.corpus],
    out,
    maxLength: MAX_LENGTH,
    shardSize: 100,
    groupSize: 2,
    progress: null,
    workers: 2,
    ...extra,
  };
}

/** The shard files of a split directory in shard order. */
function shards(dir: string): string[] {
  const index = (name: string) => Number(/^dataset-(\d+)-/.exec(name)![1]);
  return readdirSync(dir)
    .filter((n) => n.endsWith(".tfrecord") || n.endsWith(".tfrecord.gz"))
    .sort((a, b) => index(a) - index(b))
    .map((n) => join(dir, n));
}

async function readChunks(dir: string): Promise<number[][]> {
  const chunks: number[][] = [];
  for (const shard of shards(dir)) {
    for await (const record of readRecords(shard)) {
      const f = decodeExample(record);
      assert.equal(f.input_ids!.kind, "int64");
      assert.equal(f.attention_mask!.kind, "int64");
      const ids = f.input_ids!.kind === "int64" ? [...f.input_ids!.values].map(Number) : [];
      const mask = f.attention_mask!.kind === "int64" ? [...f.attention_mask!.values].map(Number) : [];
      assert.equal(ids.length, MAX_LENGTH);
      assert.deepEqual(mask, new Array(MAX_LENGTH).fill(1));
      chunks.push(ids);
    }
  }
  return chunks;
}

/** The reference grouping, computed directly with the tokenizer: concatenate each group, cut, chunk. */
async function referenceChunks(lines: string[], groupSize: number): Promise<number[][]> {
  const tokenizer = Tokenizer.fromFile(join(fixture.tokenizerDir, "tokenizer.json"));
  const chunks: number[][] = [];
  for (let g = 0; g < lines.length; g += groupSize) {
    const ids: number[] = [];
    for (const line of lines.slice(g, g + groupSize)) if (line.trim() !== "") ids.push(...(await tokenizer.encode(line)).getIds());
    for (let c = 0; c + MAX_LENGTH <= ids.length; c += MAX_LENGTH) chunks.push(ids.slice(c, c + MAX_LENGTH));
  }
  return chunks;
}

const corpusLines = readFileSync(fixture.corpus, "utf8").trimEnd().split("\n");

test("prepare writes the reference chunks into shards named with their record counts", async () => {
  const out = join(fixture.dir, "out-basic");
  const result = await prepareDataset(options(out));
  const dir = join(out, "train");
  const expected = await referenceChunks(corpusLines, 2);
  assert.deepEqual(await readChunks(dir), expected);
  const files = shards(dir);
  assert.equal(files.length, Math.ceil(expected.length / 100));
  files.forEach((f, i) =>
    assert.match(f, new RegExp(`dataset-${i}-${i < files.length - 1 ? 100 : expected.length - 100 * i}\\.tfrecord$`)),
  );
  assert.equal(
    files.reduce((n, f) => n + recordsFromFileName(f)!, 0),
    expected.length,
  );
  const [train] = result.splits;
  assert.equal(train!.records, expected.length);
  assert.equal(train!.rows, corpusLines.length);
  assert.equal(train!.tokens, train!.records * MAX_LENGTH + train!.droppedTokens);
  const manifest = JSON.parse(readFileSync(join(dir, "prepare.json"), "utf8"));
  assert.equal(manifest.complete, true);
  assert.equal(manifest.records, expected.length);
});

test("output is identical whatever the worker count", async () => {
  const a = join(fixture.dir, "out-w1");
  const b = join(fixture.dir, "out-w2");
  await prepareDataset(options(a, { workers: 1 }));
  await prepareDataset(options(b, { workers: 2 }));
  const names = (d: string) => shards(join(d, "train")).map((p) => p.slice(d.length));
  assert.deepEqual(names(a), names(b));
  for (const name of names(a)) assert.deepEqual(readFileSync(a + name), readFileSync(b + name), name);
});

test("validation and test fractions carve deterministic splits out of one input", async () => {
  // Many short rows, so that the fractions have something to act on.
  const rows = corpusLines.flatMap((l) => l.split(". ")).filter((l) => l.trim() !== "");
  const input = join(fixture.dir, "sentences.txt");
  writeFileSync(input, rows.join("\n") + "\n");
  const out = join(fixture.dir, "out-split");
  const run = () => prepareDataset(options(out, { inputs: [input], validationFraction: 0.2, testFraction: 0.1, seed: 7, groupSize: 50 }));
  const result = await run();
  assert.deepEqual(
    result.splits.map((s) => s.split),
    ["train", "validation", "test"],
  );
  const rowsOf = (name: string) => result.splits.find((s) => s.split === name)!.rows;
  assert.equal(rowsOf("train") + rowsOf("validation") + rowsOf("test"), rows.length);
  assert.ok(Math.abs(rowsOf("validation") / rows.length - 0.2) < 0.04, `validation ${rowsOf("validation")}/${rows.length}`);
  assert.ok(Math.abs(rowsOf("test") / rows.length - 0.1) < 0.03, `test ${rowsOf("test")}/${rows.length}`);
  for (const s of result.splits) assert.ok(s.records > 0 && shards(join(out, s.split)).length > 0, s.split);
  // Re-running finds everything in place.
  const again = await run();
  assert.deepEqual(
    again.splits.map((s) => [s.records, s.shardsWritten]),
    result.splits.map((s) => [s.records, 0]),
  );
});

test("a re-run after an interruption finishes the job and removes leftover temporary files", async () => {
  const out = join(fixture.dir, "out-resume");
  await prepareDataset(options(out));
  const dir = join(out, "train");
  const complete = shards(dir).map((p) => readFileSync(p));
  // What an interrupted run leaves: some shards missing, a temporary file of an unfinished write.
  for (const p of shards(dir).slice(2)) rmSync(p);
  writeFileSync(join(dir, ".dataset-2-100.tfrecord.tmp-999-abcd1234"), "partial");
  const result = await prepareDataset(options(out));
  assert.equal(result.splits[0]!.shardsReused, 2);
  assert.equal(result.splits[0]!.shardsWritten, complete.length - 2);
  assert.deepEqual(
    shards(dir).map((p) => readFileSync(p)),
    complete,
  );
  assert.ok(!readdirSync(dir).some((n) => n.includes(".tmp-")));
});

test("a re-run with different settings is refused rather than mixing shards", async () => {
  const out = join(fixture.dir, "out-mismatch");
  await prepareDataset(options(out));
  await assert.rejects(
    prepareDataset(options(out, { maxLength: 64 })),
    /already holds shards prepared with different settings \(--max-length changed\)/,
  );
});

test("GZIP shards hold the same records", async () => {
  const out = join(fixture.dir, "out-gzip");
  await prepareDataset(options(out, { compression: "gzip" }));
  assert.ok(shards(join(out, "train")).every((p) => p.endsWith(".tfrecord.gz")));
  assert.deepEqual(await readChunks(join(out, "train")), await referenceChunks(corpusLines, 2));
});

test("bad inputs are reported with file and line", async () => {
  const bad = join(fixture.dir, "bad.txt");
  writeFileSync(
    bad,
    Buffer.concat([Buffer.from("the first line\nthe second line\n"), Buffer.from([0x74, 0x68, 0xe9, 0x20, 0x0a]), Buffer.from("fourth\n")]),
  );
  await assert.rejects(
    prepareDataset(options(join(fixture.dir, "out-bad"), { inputs: [bad] })),
    new RegExp(`${bad}:3: the line is not valid UTF-8`),
  );
  const binary = join(fixture.dir, "binary.bin");
  writeFileSync(binary, Buffer.concat([Buffer.from("the first line\n"), Buffer.alloc(40), Buffer.from("\nlast\n")]));
  await assert.rejects(
    prepareDataset(options(join(fixture.dir, "out-binary"), { inputs: [binary] })),
    new RegExp(`${binary}:2: a NUL byte: this looks like a binary file, not text`),
  );
  await assert.rejects(
    prepareDataset(options(join(fixture.dir, "out-missing"), { inputs: [join(fixture.dir, "missing.txt")] })),
    /input .*missing\.txt does not exist/,
  );
  await assert.rejects(
    prepareDataset(options(join(fixture.dir, "out-x"), { maxLength: 0 })),
    /prepareDataset: maxLength = 0 must be a positive integer/,
  );
  assert.ok(!existsSync(join(fixture.dir, "out-x")));
});
