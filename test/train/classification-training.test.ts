// Fine-tuning a sequence classifier with the Trainer: a tiny RoBERTa learns which sentence openings
// hold "of" from length-bucketed batches (one compiled program per batch length), evaluation reports
// accuracy, macro F1 and the confusion matrix, and the run beats always guessing the majority class.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModel } from "../../src/models/index.js";
import { openClassificationDataset } from "../../src/data/pipeline/classification-dataset.js";
import { Trainer } from "../../src/train/trainer.js";
import { LABELS, makeTinyClassification } from "../helpers/tiny-classification.js";

const data = await makeTinyClassification();
const root = mkdtempSync(join(tmpdir(), "kiln-cls-trainer-"));
test.after(() => rmSync(root, { recursive: true, force: true }));

test("a classifier fine-tuned from a masked LM beats the majority class on held-out sentences", async () => {
  const base = await loadModel(data.baseModel, { task: "sequence-classification", labels: LABELS, seed: 1 });
  const train = await openClassificationDataset({ files: data.train, batchSize: 16, seed: 4 });
  const evalData = await openClassificationDataset({ files: data.validation, batchSize: 16, shuffle: false });
  const logs: string[] = [];
  const trainer = new Trainer({
    outputDir: join(root, "fit"),
    maxSteps: 60,
    evalEvery: 30,
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
});
