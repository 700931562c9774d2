// Fine-tuning a sequence classifier with the Trainer: a tiny RoBERTa learns which sentence openings
// hold "of" from length-bucketed batches (one compiled program per batch length), evaluation reports
// accuracy, macro F1 and the confusion matrix, and the run beats always guessing the majority class;
// a tiny Llama, read at each row's last real token, learns it too.
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { createModel, loadModel, presetConfig, saveModel } from "../../src/models/index.js";
import { loadTokenizer } from "../../src/text/index.js";
import { openClassificationDataset } from "../../src/data/pipeline/classification-dataset.js";
import { Trainer, type FitArgs } from "../../src/train/trainer.js";
import { OptionError } from "../../src/core/option-error.js";
import { LABELS, MAX_LENGTH, makeTinyClassification } from "../helpers/tiny-classification.js";
import { tempDir } from "../helpers/temp-dir.js";

const data = await makeTinyClassification();
const root = tempDir("kiln-cls-trainer-");

test("a classifier fine-tuned from a masked LM beats the majority class on held-out sentences", async () => {
  const base = await loadModel(data.baseModel, { task: "sequence-classification", labels: LABELS, seed: 1 });
  const train = await openClassificationDataset({ files: data.train, batchSize: 16, seed: 4 });
  const evalData = await openClassificationDataset({ files: data.validation, batchSize: 16, shuffle: false });
  const logs: string[] = [];
  const trainer = new Trainer({
    outputDir: join(root, "fit"),
    maxSteps: 120,
    evalEvery: 60,
    logEvery: 10,
    seed: 7,
    progress: false,
    loggers: [],
  });
  (trainer as unknown as { log: (m: string) => void }).log = (m: string) => logs.push(m);
  const result = await trainer.fit({ model: base.model, params: base.params, optimizer: { learningRate: 3e-3 }, train, eval: evalData });
  const last = result.evalHistory.at(-1)!;
  assert.ok(last.eval_accuracy! > data.chance + 0.1, `accuracy ${last.eval_accuracy} against chance ${data.chance}\n${logs.join("\n")}`);
  assert.ok(last.eval_macro_f1! > 0.6, `macro F1 ${last.eval_macro_f1}`);
  assert.equal(last.eval_examples, evalData.numRecords, "every validation record is counted once, padding rows never");
  assert.match(result.evalReport!.join("\n"), /true \\ predicted\s+other\s+has-of/);
  assert.deepEqual(result.evalDetails?.labels, LABELS);
});

test("a causal LM's directory fine-tunes too (Llama's score head on each row's last real token)", async () => {
  const tokenizer = await loadTokenizer(data.tokenizerDir);
  const lm = createModel(presetConfig("llama-tiny", tokenizer, MAX_LENGTH));
  const dir = join(root, "llama");
  await saveModel(dir, lm, k.jit((key: k.Array) => lm.init(key))(k.randomKey(2)));
  const base = await loadModel(dir, { task: "sequence-classification", labels: LABELS, seed: 1 });
  assert.match(base.notices.join("\n"), /LlamaForSequenceClassification are newly initialized: score\.weight/);
  const train = await openClassificationDataset({ files: data.train, batchSize: 16, seed: 4 });
  const evalData = await openClassificationDataset({ files: data.validation, batchSize: 16, shuffle: false });
  const trainer = new Trainer({ outputDir: join(root, "llama-fit"), maxSteps: 100, seed: 42, progress: false, loggers: [] });
  const result = await trainer.fit({ model: base.model, params: base.params, optimizer: { learningRate: 3e-3 }, train, eval: evalData });
  const last = result.evalHistory.at(-1)!;
  assert.ok(last.eval_accuracy! > data.chance + 0.05, `accuracy ${last.eval_accuracy} against chance ${data.chance}`);
});

test("fit refuses what a classifier cannot train on, naming the library option", async () => {
  const train = await openClassificationDataset({ files: data.train, batchSize: 16 });
  const fit = async (name: string, args: Partial<FitArgs>) => {
    const base = await loadModel(data.baseModel, { task: "sequence-classification", labels: LABELS });
    const trainer = new Trainer({ outputDir: join(root, name), maxSteps: 2, progress: false, loggers: [] });
    return trainer.fit({ model: base.model, params: base.params, optimizer: { learningRate: 1e-3 }, train, ...args } as FitArgs);
  };
  await assert.rejects(fit("weights", { classWeights: [1] }), (e: unknown) => {
    assert.ok(e instanceof OptionError && e.option === "classWeights", String(e));
    assert.match(e.message, /must be 2 finite weights ≥ 0 \(one per class of the model\)/);
    return true;
  });
  const regression = await loadModel(data.baseModel, { task: "sequence-classification", numLabels: 1 });
  await assert.rejects(fit("regression", { model: regression.model, params: regression.params }), (e: unknown) => {
    assert.ok(e instanceof OptionError && e.option === "model", String(e));
    assert.match(e.message, /is set up for regression, and Kiln fine-tunes single-label classifiers only/);
    return true;
  });
  const lm = createModel(presetConfig("mlm-tiny", await loadTokenizer(data.tokenizerDir), MAX_LENGTH));
  await assert.rejects(fit("lm", { model: lm as FitArgs["model"], params: undefined }), (e: unknown) => {
    assert.ok(e instanceof OptionError && e.option === "train", String(e));
    assert.match(e.message, /holds labelled classification records, but the model is a language model/);
    return true;
  });
});
