// A tiny fine-tuning setup for the classification trainer tests: SOTU sentence openings (3 to 12
// words) labelled by whether they hold the word "of" (a property a tiny encoder learns in tens of
// steps; 42% of them do), prepared as train and validation splits with a Unigram tokenizer trained on
// the same speeches, and a freshly initialized mlm-tiny RoBERTa saved as the "pretrained" directory
// to fine-tune from (with its tokenizer).
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { prepareClassificationDataset } from "../../src/data/classification/prepare.js";
import { createModel, presetConfig, saveModel } from "../../src/models/index.js";
import { loadTokenizer } from "../../src/text/index.js";
import { makeTestCorpus, sentenceCorpus, sotuSlice } from "./sotu-slice.js";
import { tempDir } from "./temp-dir.js";

export const LABELS = ["other", "has-of"];
export const MAX_LENGTH = 32;

export interface TinyClassification {
  dir: string;
  tokenizerDir: string;
  /** The prepared splits. */
  train: string;
  validation: string;
  /** A saved masked LM (with tokenizer.json) to fine-tune from. */
  baseModel: string;
  /** The JSON Lines inputs of each split. */
  trainJsonl: string;
  validationJsonl: string;
  /** Share of the validation split's majority class: the accuracy of always guessing it. */
  chance: number;
}

/** The labelled rows: each sentence's first 3–12 words, label 1 where they hold "of". */
function labelledRows(): { text: string; label: string }[] {
  const sentences = sentenceCorpus(sotuSlice(8).lines).trim().split("\n");
  return sentences.map((s, i) => {
    const text = s
      .split(" ")
      .slice(0, 3 + (i % 10))
      .join(" ");
    return { text, label: LABELS[/\bof\b/i.test(text) ? 1 : 0]! };
  });
}

export async function makeTinyClassification(): Promise<TinyClassification> {
  const corpus = await makeTestCorpus(2, 500);
  const dir = tempDir("kiln-cls-train-");
  const rows = labelledRows();
  const cut = Math.floor(rows.length * 0.8);
  const write = (name: string, part: typeof rows) => {
    const path = join(dir, name);
    writeFileSync(path, part.map((r) => JSON.stringify(r)).join("\n") + "\n");
    return path;
  };
  const trainJsonl = write("train.jsonl", rows.slice(0, cut));
  const validationJsonl = write("validation.jsonl", rows.slice(cut));
  const common = { textColumn: "text", labelColumn: "label", labels: LABELS, tokenizer: corpus.tokenizerDir, out: join(dir, "data") };
  const opts = { maxLength: MAX_LENGTH, padToMultipleOf: 8 };
  const train = await prepareClassificationDataset({ ...common, ...opts, input: trainJsonl, split: "train", shardSize: 150 });
  const validation = await prepareClassificationDataset({ ...common, ...opts, input: validationJsonl, split: "validation" });
  const tokenizer = await loadTokenizer(corpus.tokenizerDir);
  const model = createModel(presetConfig("mlm-tiny", tokenizer, MAX_LENGTH));
  const baseModel = join(dir, "base");
  await saveModel(baseModel, model, k.jit((key: k.Array) => model.init(key))(k.randomKey(3)));
  cpSync(join(corpus.tokenizerDir, "tokenizer.json"), join(baseModel, "tokenizer.json"));
  const counts = validation.labelCounts;
  return {
    dir,
    tokenizerDir: corpus.tokenizerDir,
    train: train.dir,
    validation: validation.dir,
    baseModel,
    trainJsonl,
    validationJsonl,
    chance: Math.max(...counts) / counts.reduce((a, b) => a + b, 0),
  };
}
