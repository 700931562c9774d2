// What a training run is set up with before fit, as a library user (and `kiln train`) calls it: the model
// plan (tokenizer, record length, checked config), the model built from it, the data opened and checked
// at the global batch, and the Trainer's device notices going where its `notice` option says.
import test from "node:test";
import assert from "node:assert/strict";
import { cpSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/core/index.js";
// The package entry registers the executors, as a user's import of kiln/train does.
import "../../src/entry/train.js";
import { OptionError } from "../../src/core/option-error.js";
import { Trainer } from "../../src/train/trainer.js";
import { openTrainingData, skippedRecordLines } from "../../src/train/training-data.js";
import { trainingModel, trainingModelPlan } from "../../src/train/training-model.js";
import { prepareTinyCausalData } from "../helpers/tiny-causal-cli.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-training-inputs-");
const d = prepareTinyCausalData(root);
const trainData = [join(d.shards, "train")];

const libraryError = (option: string, pattern: RegExp) => (e: unknown) => {
  assert.ok(e instanceof OptionError, String(e));
  assert.equal(e.option, option);
  assert.match(e.message, pattern);
  assert.doesNotMatch(e.message, /--/, "no CLI flag in a library error");
  return true;
};

test("trainingModelPlan checks the model against the tokenizer and the data; trainingModel builds it", async () => {
  const plan = await trainingModelPlan({ task: "causal-lm", source: { preset: "llama-tiny" }, tokenizerDir: d.tokenizer, trainData });
  assert.equal(plan.maxLength, 32, "the shards' record length");
  assert.equal(plan.config.model_type, "llama");
  assert.equal(plan.config.vocab_size, plan.tokenizer.vocabSize);
  const built = await trainingModel(plan.config, { task: "causal-lm", seed: 1, device: k.getDefaultDevice() });
  assert.ok(built.parameterCount > 1000, `${built.parameterCount} parameters`);
  assert.equal(built.params, undefined, "from scratch: fit initializes it");
  assert.deepEqual(built.notices, []);
  await assert.rejects(
    trainingModelPlan({ task: "causal-lm", source: { preset: "llama-tiny", modelConfig: "x.json" }, tokenizerDir: d.tokenizer, trainData }),
    libraryError("modelConfig", /is given with preset/),
  );
  await assert.rejects(
    trainingModelPlan({ task: "mlm", source: { preset: "llama-tiny" }, tokenizerDir: d.tokenizer, trainData }),
    libraryError("preset", /is a causal LM/),
  );
  await assert.rejects(
    trainingModelPlan({ task: "causal-lm", source: { preset: "llama-tiny" }, tokenizerDir: d.tokenizer, trainData, maxLength: 64 }),
    /64/,
  );
});

test("openTrainingData opens the shards at the global batch, reads them through and says so through `notice`", async () => {
  const notices: string[] = [];
  const settings = {
    train: trainData,
    eval: [join(d.shards, "validation")],
    maxLength: 32,
    globalBatch: 4,
    seed: 3,
    shuffleBuffer: 64,
    skipBadRecords: false,
    tokenizerDir: d.tokenizer,
    notice: (line: string) => notices.push(line),
  };
  const data = await openTrainingData(settings);
  assert.equal(data.train.batchSize, 4);
  assert.equal(data.train.epochs, Infinity);
  assert.equal(data.eval?.epochs, 1);
  assert.equal(data.trainRecords, data.train.numRecords);
  assert.equal(notices.length, 1);
  assert.match(notices[0]!, /^checked \d+ shards \(\d+\.\d MB\) in \d+\.\d\d s$/);
  assert.deepEqual(skippedRecordLines(data), []);
  // Shards prepared with another tokenizer (here: one byte more in tokenizer.json) are refused before any step.
  const other = join(root, "other-tokenizer");
  cpSync(d.tokenizer, other, { recursive: true });
  appendFileSync(join(other, "tokenizer.json"), "\n");
  await assert.rejects(
    openTrainingData({ ...settings, tokenizerDir: other }),
    libraryError("tokenizerDir", /not the tokenizer the shards/),
  );
});

test("the Trainer's device notices go to its `notice` option; a notice that is not a function is refused", () => {
  const notices: string[] = [];
  const trainer = new Trainer({ outputDir: join(root, "out"), accelerator: "auto", devices: 1, notice: (l) => notices.push(l) });
  // Without a GPU/TPU plugin "auto" falls back to the CPU and says so; with one it trains there silently.
  const onCpu = trainer.strategy.devices[0]!.platform === "cpu";
  assert.equal(notices.length, onCpu ? 1 : 0, notices.join("\n"));
  if (onCpu) assert.match(notices[0]!, /no GPU\/TPU PJRT plugin found; using the CPU/);
  assert.throws(
    () => new Trainer({ outputDir: join(root, "out"), notice: "stderr" as unknown as (l: string) => void }),
    libraryError("notice", /is not a function/),
  );
});
