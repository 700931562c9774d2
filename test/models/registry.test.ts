// The model registry: every family's spec drives creation, config reading, presets and loading. The
// presets keep the names and order `kiln train --help` has always listed; each builds a model of its
// task that takes sequences of the preset's length; loadModel tags what it loads with the task, and
// refuses a directory of the other task when one is asked for; a model_type no spec has is named.
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as k from "../../src/index.js";
import {
  MODEL_SPECS,
  createModel,
  loadModel,
  maxLengthOf,
  modelTask,
  presetConfig,
  presetNames,
  presetTask,
  saveModel,
  validateModelConfig,
} from "../../src/models/index.js";
import { tempDir } from "../helpers/temp-dir.js";

k.setDefaultDevice("ref:0");

const root = tempDir("kiln-registry-");

const tokenizer = { vocabSize: 120, padId: 3, clsId: 0, sepId: 1 };

test("presets: the masked and causal names in their order; each builds a model of its task at its length", () => {
  assert.deepEqual(presetNames("mlm"), ["mlm-tiny", "mlm-small", "mlm-mini", "roberta-base"]);
  assert.deepEqual(presetNames("causal-lm"), ["llama-tiny", "llama-small", "smollm-135m", "gpt2-tiny", "gpt2-small", "gpt2-124m"]);
  assert.deepEqual(presetNames(), [...presetNames("mlm"), ...presetNames("causal-lm")]);
  for (const name of presetNames()) {
    const config = presetConfig(name, tokenizer, 24);
    assert.equal(modelTask(config), presetTask(name), name);
    assert.equal(maxLengthOf(config), 24, name);
    assert.equal(config.vocab_size, 120, name);
    const model = createModel(config);
    assert.equal(typeof (model as { forwardCached?: unknown }).forwardCached === "function", presetTask(name) === "causal-lm", name);
  }
  assert.equal(presetTask("no-such-preset"), undefined);
  // A name read at run time (a literal would not type-check) is checked when called.
  assert.throws(
    () => presetConfig("no-such-preset" as string, tokenizer),
    /unknown preset "no-such-preset"; presets: mlm-tiny, mlm-small, /,
  );
});

test("every spec's architecture is what config.json names; an unknown model_type lists the registered ones", () => {
  assert.deepEqual(
    MODEL_SPECS.map((s) => [s.modelType, s.task, s.architecture]),
    [
      ["roberta", "mlm", "RobertaForMaskedLM"],
      ["bert", "mlm", "BertForMaskedLM"],
      ["llama", "causal-lm", "LlamaForCausalLM"],
      ["gpt2", "causal-lm", "GPT2LMHeadModel"],
    ],
  );
  assert.throws(
    () => validateModelConfig({ model_type: "t5", vocab_size: 10 }, "test config"),
    /test config: model_type "t5" is not supported \(roberta, bert, llama, gpt2\)/,
  );
});

test("loadModel: one entry for either task, the result tagged with it; a task asked for must match", async () => {
  for (const name of ["mlm-tiny", "llama-tiny", "gpt2-tiny"] as const) {
    const model = createModel(presetConfig(name, tokenizer, 16));
    const dir = join(root, name);
    await saveModel(dir, model, model.init(k.randomKey(1)));
    const loaded = await loadModel(dir);
    assert.equal(loaded.task, presetTask(name), name);
    assert.equal(loaded.model.config.model_type, model.config.model_type, name);
    if (loaded.task === "mlm") assert.equal(loaded.mlmHead, "loaded");
    const other = loaded.task === "mlm" ? "causal-lm" : "mlm";
    await assert.rejects(loadModel(dir, { task: other }), new RegExp(`not a .* language model \\(task "${other}"\\)`));
  }
});
