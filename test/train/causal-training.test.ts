// Training a causal LM with the Trainer: data parallelism, gradient accumulation and steps per execution
// train exactly what one device does (the loss normalized over the global batch's targets, padded rows
// included); llama-tiny learns a SOTU slice prepared by `data prepare` (the MLM's shards, as they are),
// logging eval_perplexity, and writes a model directory loadModel reads back; the objective
// follows from the model, and mismatched settings or checkpoints are refused.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { openDataset } from "../../src/data/pipeline/dataset.js";
import { prepareDataset } from "../../src/data/prepare/prepare.js";
import { presetConfig, createCausalLM, loadModel } from "../../src/models/index.js";
import { loadTokenizer } from "../../src/text/index.js";
import { Trainer } from "../../src/train/trainer.js";
import { TINY, tinyLlamaConfig, trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { maxRelativeDifference } from "../helpers/param-diff.js";
import { makeTestCorpus, writeSentenceCorpus } from "../helpers/sotu-slice.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-causal-train-");
const tiny = join(root, "tiny");
await writeTinyShards(tiny, 96);

test("llama-tiny: 4 replicas × 4, 4 micro-batches × 4 and 2 steps per execution train one device's batch-16 parameters", async () => {
  const steps = 6,
    batch = 16;
  const run = (name: string, trainer: object) => trainTiny(tiny, join(root, name), steps, { task: "causal-lm", batch, trainer });
  const one = await run("one", {});
  const variants = {
    replicas: await run("dp4", { accelerator: "cpu", devices: 4 }),
    accumulation: await run("accum4", { gradientAccumulation: 4 }),
    "steps per execution": await run("spe2", { accelerator: "cpu", devices: 2, stepsPerExecution: 2, checkpointEvery: 0 }),
  };
  for (const [name, r] of Object.entries(variants)) {
    const err = maxRelativeDifference(r.params, one.params);
    assert.ok(err < 1e-5, `${name} vs one device: max relative parameter difference ${err}`);
    assert.deepEqual(
      r.history.map((h) => h.loss!.toFixed(5)),
      one.history.map((h) => h.loss!.toFixed(5)),
      name,
    );
  }
  // Training moved the parameters, and the losses are next-token losses over 64 tokens (about ln 64 at first).
  assert.ok(one.history[0]!.loss !== one.history.at(-1)!.loss);
  assert.ok(Math.abs(one.history[0]!.loss! - Math.log(TINY.vocab)) < 0.5, `first loss ${one.history[0]!.loss}`);
});

test("llama-tiny learns a SOTU slice from `data prepare` shards: eval loss falls, eval_perplexity = exp(eval_loss)", async () => {
  const corpus = await makeTestCorpus(2, 300);
  const shards = join(root, "sotu-shards");
  await prepareDataset({
    tokenizer: corpus.tokenizerDir,
    inputs: [writeSentenceCorpus(join(root, "sentences.txt"))],
    out: shards,
    maxLength: 32,
    groupSize: 50,
    validationFraction: 0.1,
    seed: 0,
    progress: null,
  });
  const tokenizer = await loadTokenizer(corpus.tokenizerDir);
  const common = { maxLength: 32, batchSize: 8 };
  const train = await openDataset({
    files: join(shards, "train"),
    ...common,
    shuffle: true,
    seed: 1,
    epochs: Infinity,
    shuffleBuffer: 256,
  });
  const evalData = await openDataset({ files: join(shards, "validation"), ...common, shuffle: false });
  const out = join(root, "sotu-model");
  const config = presetConfig("llama-tiny", tokenizer, 32);
  const result = await new Trainer({ outputDir: out, maxSteps: 40, evalEvery: 20, evalAtStart: true, logEvery: 10, progress: false }).fit({
    model: createCausalLM(config),
    train,
    eval: evalData,
    tokenizerDir: corpus.tokenizerDir,
    optimizer: { learningRate: 1e-2, weightDecay: 0.01 },
  });
  const evals = result.evalHistory;
  assert.equal(evals.length, 3);
  for (const e of evals) assert.ok(Math.abs(e.eval_perplexity! - Math.exp(e.eval_loss!)) < 1e-9 * e.eval_perplexity!);
  assert.ok(Math.abs(evals[0]!.eval_loss! - Math.log(300)) < 0.3, `the untrained model guesses uniformly: ${evals[0]!.eval_loss}`);
  assert.ok(evals[2]!.eval_loss! < evals[0]!.eval_loss! - 1, `eval loss ${evals.map((e) => e.eval_loss!.toFixed(3)).join(" → ")}`);
  // The final directory is a LlamaForCausalLM directory that loads back to the trained parameters.
  const saved = JSON.parse(readFileSync(join(out, "config.json"), "utf8"));
  assert.deepEqual(saved.architectures, ["LlamaForCausalLM"]);
  const loaded = await loadModel(out, { task: "causal-lm" });
  assert.equal(maxRelativeDifference(loaded.params, result.params), 0);
  const state = JSON.parse(readFileSync(join(out, "checkpoint-40", "trainer_state.json"), "utf8"));
  assert.equal(state.run_settings.task, "causal-lm");
  assert.equal(state.run_settings.mlm_probability, undefined);
  const logged = readFileSync(join(out, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(logged.filter((m) => m.eval_perplexity !== undefined).length, 3);
});

test("the model decides the objective: masking for a causal LM, or a checkpoint of the other task, is refused", async () => {
  const dir = join(root, "mismatch");
  await trainTiny(tiny, dir, 2, { task: "causal-lm" });
  const data = await openDataset({ files: tiny, maxLength: TINY.length, batchSize: 8, shuffle: false });
  await assert.rejects(
    new Trainer({ outputDir: join(root, "masked-causal"), maxSteps: 1, progress: false }).fit({
      model: createCausalLM(tinyLlamaConfig()),
      train: data,
      optimizer: { learningRate: 1e-3 },
      masking: { maskTokenId: 4, vocabSize: TINY.vocab, specialIds: [0, 1, 2, 3, 4] },
    }),
    /a causal LM \(llama\) trains on next-token prediction and has no masking/,
  );
  await assert.rejects(trainTiny(tiny, dir, 4, { resume: true }), /checkpoint-2 is a causal-lm run, but this model trains as mlm/);
  void k;
});
