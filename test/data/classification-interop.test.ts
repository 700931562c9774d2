// Kiln's classification records against the Python ecosystem: the ids and token types of every record
// equal what `tokenizers` makes of the same text (or pair) with the tokenizer.json's post-processor and
// truncation to maxLength, and TensorFlow reads the shards as tf.train.Example records.
import test from "node:test";
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepareClassificationDataset } from "../../src/data/classification/prepare.js";
import { makeTestCorpus, sentenceCorpus, sotuSlice } from "../helpers/sotu-slice.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { tempDir } from "../helpers/temp-dir.js";

interface PythonView {
  tokenizers: [number[], number[]][];
  tensorflow: [number[], number[], number][];
}

test("records equal tokenizers' encodings (pairs and truncation included) and TensorFlow reads them", { skip: pythonSkip }, async () => {
  const corpus = await makeTestCorpus(2, 500);
  const dir = tempDir("kiln-classification-interop-");
  const sentences = sentenceCorpus(sotuSlice(3).lines).trim().split("\n");
  // Pairs of every length relation around maxLength: both short, one long, both long, ties.
  const rows = sentences.slice(0, 120).map((text, i) => ({
    text: i % 7 === 0 ? `${text} ${sentences[i + 1]}` : text,
    pair: i % 5 === 0 ? text : sentences[(i * 13) % sentences.length]!.slice(0, 10 + ((i * 17) % 200)),
    label: i % 2,
  }));
  const input = join(dir, "pairs.jsonl");
  writeFileSync(input, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  for (const [pair, maxLength] of [
    ["pair", 24],
    ["pair", 64],
    ["", 20],
  ] as const) {
    const r = await prepareClassificationDataset({
      input,
      textColumn: "text",
      ...(pair ? { textPairColumn: pair } : {}),
      labelColumn: "label",
      tokenizer: corpus.tokenizerDir,
      out: join(dir, `out-${pair}-${maxLength}`),
      maxLength,
      shardSize: 50,
    });
    assert.ok(r.truncated > 10, `${r.truncated} records cut`);
    const index = (n: string) => Number(/^dataset-(\d+)-/.exec(n)![1]);
    const shards = readdirSync(r.dir)
      .filter((n) => n.endsWith(".tfrecord"))
      .sort((a, b) => index(a) - index(b))
      .map((n) => join(r.dir, n));
    const view = runPython<PythonView>("classification_records.py", [
      join(corpus.tokenizerDir, "tokenizer.json"),
      input,
      "text",
      pair,
      String(maxLength),
      ...shards,
    ]);
    assert.equal(view.tensorflow.length, rows.length);
    view.tensorflow.forEach(([ids, types, label], i) => {
      const [wantIds, wantTypes] = view.tokenizers[i]!;
      assert.deepEqual(ids, wantIds, `record ${i} (pair ${pair || "none"}, maxLength ${maxLength})`);
      // Single texts store no token_type_ids (TensorFlow reads an absent VarLenFeature as empty).
      assert.deepEqual(types, pair ? wantTypes : [], `record ${i} token types`);
      assert.equal(label, rows[i]!.label);
    });
  }
});
