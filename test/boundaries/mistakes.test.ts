// Mistakes a user makes at Kiln's library boundary, each refused by the function that was called with
// an OptionError that names the argument, shows the value as given (strings quoted, with their type) and
// says what to do, in the library's words. Every entry is a real call on real components; nothing is
// compiled (each mistake is caught before any work).
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { OptionError, describeValue } from "../../src/core/option-error.js";
import { loadTokenizer } from "../../src/text/index.js";
import { createCausalLM, createMaskedLM, loadModel, presetConfig, validateConfig, type CausalConfig } from "../../src/models/index.js";
import { FillMaskPipeline } from "../../src/pipelines/fill-mask.js";
import { TextGenerationPipeline } from "../../src/pipelines/text-generation.js";
import { Generator } from "../../src/pipelines/generation/generator.js";
import { Trainer } from "../../src/train/trainer.js";
import { openDataset } from "../../src/data/pipeline/dataset.js";
import { prepareDataset } from "../../src/data/prepare/prepare.js";
import { AdamW } from "../../src/optim/adamw.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { TINY, tinyConfig, writeTinyShards } from "../helpers/tiny-training.js";
import { tempDir } from "../helpers/temp-dir.js";

const corpus = await makeTestCorpus(3, 300);
const tokenizer = await loadTokenizer(corpus.tokenizerDir);
const mlm = createMaskedLM({ ...presetConfig("mlm-small", tokenizer, 32), hidden_size: 16, intermediate_size: 16, num_hidden_layers: 1 });
const mlmParams = mlm.init(k.randomKey(0));
const fill = new FillMaskPipeline(mlm, mlmParams, tokenizer);
const llama = createCausalLM(presetConfig("llama-tiny", tokenizer, 32) as CausalConfig);
const generator = new TextGenerationPipeline(llama, llama.init(k.randomKey(1)), tokenizer);

const dataDir = tempDir("kiln-mistakes-");
await writeTinyShards(dataDir);
const train = await openDataset({ files: dataDir, maxLength: TINY.length, batchSize: TINY.batch });
const tinyModel = createMaskedLM(tinyConfig());
/** A RoBERTa with positions for 8 tokens: the tiny shards hold 16. */
const shortModel = createMaskedLM(validateConfig({ ...tinyConfig(), max_position_embeddings: 12 }, "short config"));
const trainer = () => new Trainer({ outputDir: join(dataDir, "never-written"), progress: false });
const ids = (shape: number[]) => k.zeros(shape, "i32");

interface Mistake {
  /** What the user did, as they would write it. */
  call: string;
  run: () => unknown;
  /** The function or class named first in the message. */
  where: string;
  option: string;
  /** The value as the user gave it (the message must show describeValue of it). */
  value: unknown;
  /** What the message must say to fix it. */
  fix: RegExp;
}

const MISTAKES: Mistake[] = [
  // ---- making arrays ----
  {
    call: 'k.zeros([2], "float32")',
    run: () => k.zeros([2], "float32" as k.DType),
    where: "zeros",
    option: "dtype",
    value: "float32",
    fix: /pass "f32"/,
  },
  { call: "k.zeros(2)", run: () => k.zeros(2 as unknown as number[]), where: "zeros", option: "shape", value: 2, fix: /\[2\]/ },
  {
    call: 'k.ones([2], "int")',
    run: () => k.ones([2], "int" as k.DType),
    where: "ones",
    option: "dtype",
    value: "int",
    fix: /pass "i32"/,
  },
  {
    call: 'k.fromHost(new Float32Array([1.5]), [1], "i32")',
    run: () => k.fromHost(new Float32Array([1.5]), [1], "i32"),
    where: "fromHost",
    option: "data",
    value: new Float32Array([1.5]),
    fix: /Round the values first/,
  },
  {
    call: 'k.fromHost(new Uint16Array([1]), [1], "f32")',
    run: () => k.fromHost(new Uint16Array([1]), [1], "f32"),
    where: "fromHost",
    option: "data",
    value: new Uint16Array([1]),
    fix: /"bf16" or "f16"/,
  },
  {
    call: "k.fromHost(new Float32Array(3), [2])",
    run: () => k.fromHost(new Float32Array(3), [2]),
    where: "fromHost",
    option: "shape",
    value: [2],
    fix: /multiply to 3/,
  },
  { call: 'k.array(["1", "2"])', run: () => k.array(["1", "2"]), where: "array", option: "values[0]", value: "1", fix: /Number\(s\)/ },
  {
    call: 'k.array([1, 2], { dype: "i32" })',
    run: () => k.array([1, 2], { dype: "i32" } as k.ArrayOptions),
    where: "array",
    option: "dype",
    value: "i32",
    fix: /Did you mean dtype\?/,
  },
  {
    call: 'x.astype("int32")',
    run: () => k.zeros([2]).astype("int32" as k.DType),
    where: "astype",
    option: "dtype",
    value: "int32",
    fix: /pass "i32"/,
  },
  {
    call: "k.jit(fn, { donate: [0] })",
    run: () => k.jit((x: k.Array) => x, { donate: [0] } as k.JitOptions),
    where: "jit",
    option: "donate",
    value: [0],
    fix: /Did you mean donateArgs\?/,
  },
  // ---- data and optimizers ----
  {
    call: "openDataset({ file: dir, maxLength, batchSize })",
    run: () => openDataset({ file: dataDir, maxLength: TINY.length, batchSize: TINY.batch } as never),
    where: "openDataset",
    option: "file",
    value: dataDir,
    fix: /Did you mean files\?/,
  },
  {
    call: 'prepareDataset({ tokenizer, inputs: "corpus.txt", out })',
    run: () => prepareDataset({ tokenizer: corpus.tokenizerDir, inputs: "corpus.txt" as never, out: join(dataDir, "never-prepared") }),
    where: "prepareDataset",
    option: "inputs",
    value: "corpus.txt",
    fix: /inputs: \["corpus\.txt"\]/,
  },
  {
    call: "prepareDataset({ …, validationFraction: 0.6, testFraction: 0.5 })",
    run: () =>
      prepareDataset({
        tokenizer: corpus.tokenizerDir,
        inputs: [corpus.corpus],
        out: join(dataDir, "never-prepared"),
        validationFraction: 0.6,
        testFraction: 0.5,
      }),
    where: "prepareDataset",
    option: "testFraction",
    value: 0.5,
    fix: /below 1/,
  },
  {
    call: "new AdamW({ learning_rate: 1e-3 })",
    run: () => new AdamW({ learning_rate: 1e-3 } as never),
    where: "AdamW",
    option: "learning_rate",
    value: 1e-3,
    fix: /Did you mean learningRate\?/,
  },
  {
    call: 'new AdamW({ learningRate: "1e-3" })',
    run: () => new AdamW({ learningRate: "1e-3" as never }),
    where: "AdamW",
    option: "learningRate",
    value: "1e-3",
    fix: /learningRate: 0\.001/,
  },
  // ---- a model's forward pass ----
  {
    call: "model.hidden(params, 1-D ids, mask)",
    run: () => mlm.hidden(mlmParams, ids([5]), ids([5])),
    where: "RobertaForMaskedLM.hidden",
    option: "inputIds",
    value: ids([5]),
    fix: /inputIds\.reshape\(\[1, 5\]\)/,
  },
  {
    call: "model.hidden(params, f32 ids, mask)",
    run: () => mlm.hidden(mlmParams, k.zeros([1, 5]), ids([1, 5])),
    where: "RobertaForMaskedLM.hidden",
    option: "inputIds",
    value: k.zeros([1, 5]),
    fix: /astype\("i32"\)/,
  },
  {
    call: "model.hidden(params, ids longer than the positions, mask)",
    run: () => mlm.hidden(mlmParams, ids([1, 40]), ids([1, 40])),
    where: "RobertaForMaskedLM.hidden",
    option: "inputIds",
    value: ids([1, 40]),
    fix: /Cut the sequences to 32 tokens/,
  },
  {
    call: "model.hidden(params, ids, mask of another shape)",
    run: () => llama.hidden(mlmParams, ids([1, 5]), ids([1, 4])),
    where: "LlamaForCausalLM.hidden",
    option: "attentionMask",
    value: ids([1, 4]),
    fix: /one mask value per token/,
  },
  {
    call: "model.hidden(undefined, ids, mask)",
    run: () => mlm.hidden(undefined as never, ids([1, 5]), ids([1, 5])),
    where: "RobertaForMaskedLM.hidden",
    option: "params",
    value: undefined,
    fix: /model\.init\(key\)/,
  },
  {
    call: 'loadModel(dir, { task: "causal" })',
    run: () => loadModel(dataDir, { task: "causal" as never }),
    where: "loadModel",
    option: "task",
    value: "causal",
    fix: /Did you mean causal-lm\?/,
  },
  // ---- pipelines ----
  {
    call: 'generate("We", { max_new_tokens: 4 })',
    run: () => generator.generate("We", { max_new_tokens: 4 } as never),
    where: "generate",
    option: "max_new_tokens",
    value: 4,
    fix: /Did you mean maxNewTokens\?/,
  },
  {
    call: 'generate("We", { greedy: true, temperature: 0.5 })',
    run: () => generator.generate("We", { greedy: true, temperature: 0.5 }),
    where: "generate",
    option: "temperature",
    value: 0.5,
    fix: /leave temperature out, or drop greedy: true/,
  },
  {
    call: 'generate("We", { maxNewTokens: "4" })',
    run: () => generator.generate("We", { maxNewTokens: "4" as never }),
    where: "generate",
    option: "maxNewTokens",
    value: "4",
    fix: /not a string: maxNewTokens: 4/,
  },
  {
    call: 'generate("We", { topP: 5 })',
    run: () => generator.generate("We", { topP: 5 }),
    where: "generate",
    option: "topP",
    value: 5,
    fix: /topP: 1/,
  },
  {
    call: "generate([1, 2, 3])",
    run: () => generator.generate([1, 2, 3] as never),
    where: "generate",
    option: "prompts[0]",
    value: 1,
    fix: /generator\.generate/,
  },
  {
    call: 'new Generator(model, params, { decodeLoop: "loop" })',
    run: () => new Generator(llama, mlmParams, { decodeLoop: "loop" as never }),
    where: "Generator",
    option: "decodeLoop",
    value: "loop",
    fix: /unrolled, scan/,
  },
  {
    call: "fill.call([1, 2])",
    run: () => fill.call([1, 2] as never),
    where: "fill-mask",
    option: "text[0]",
    value: 1,
    fix: /a list of such texts/,
  },
  {
    call: 'fill.call("The [MASK].", { top_k: 3 })',
    run: () => fill.call("The [MASK].", { top_k: 3 } as never),
    where: "fill-mask",
    option: "top_k",
    value: 3,
    fix: /Did you mean topK\?/,
  },
  {
    call: 'fill.call("no mask here")',
    run: () => fill.call("no mask here"),
    where: "fill-mask",
    option: "text",
    value: "no mask here",
    fix: /\[MASK\]/,
  },
  {
    call: 'fill.call("[MASK] and [MASK]")',
    run: () => fill.call("[MASK] and [MASK]"),
    where: "fill-mask",
    option: "text",
    value: "[MASK] and [MASK]",
    fix: /eachMask: true/,
  },
  // ---- training ----
  {
    call: "new Trainer({})",
    run: () => new Trainer({} as never),
    where: "Trainer",
    option: "outputDir",
    value: undefined,
    fix: /outputDir: "runs\/1"/,
  },
  {
    call: 'new Trainer({ outputDir, maxSteps: "2" })',
    run: () => new Trainer({ outputDir: "out", maxSteps: "2" as never }),
    where: "Trainer",
    option: "maxSteps",
    value: "2",
    fix: /not a string: maxSteps: 2/,
  },
  {
    call: "new Trainer({ outputDir, max_steps: 2 })",
    run: () => new Trainer({ outputDir: "out", max_steps: 2 } as never),
    where: "Trainer",
    option: "max_steps",
    value: 2,
    fix: /Did you mean maxSteps\?/,
  },
  {
    call: 'new Trainer({ outputDir, precision: "fp16" })',
    run: () => new Trainer({ outputDir: "out", precision: "fp16" as never }),
    where: "Trainer",
    option: "precision",
    value: "fp16",
    fix: /16-mixed/,
  },
  {
    call: 'new Trainer({ outputDir, devices: "2" })',
    run: () => new Trainer({ outputDir: "out", devices: "2" as never }),
    where: "Trainer",
    option: "devices",
    value: "2",
    fix: /devices: 2/,
  },
  {
    call: 'fit({ train: "dir" })',
    run: () => trainer().fit({ model: tinyModel, optimizer: { learningRate: 1e-3 }, train: dataDir as never }),
    where: "fit",
    option: "train",
    value: dataDir,
    fix: /openDataset\(\{ files: ".*", maxLength, batchSize \}\)/,
  },
  {
    call: 'fit({ optimizer: { learningRate: "1e-3" } })',
    run: () => trainer().fit({ model: tinyModel, optimizer: { learningRate: "1e-3" as never }, train }),
    where: "fit",
    option: "optimizer.learningRate",
    value: "1e-3",
    fix: /optimizer\.learningRate: 0\.001/,
  },
  {
    call: "fit({ optimizer: { learning_rate: 1e-3 } })",
    run: () => trainer().fit({ model: tinyModel, optimizer: { learning_rate: 1e-3 } as never, train }),
    where: "fit",
    option: "optimizer.learning_rate",
    value: 1e-3,
    fix: /Did you mean learningRate\?/,
  },
  {
    call: "fit({ model with 8 positions, train: 16-token shards })",
    run: () => trainer().fit({ model: shortModel, optimizer: { learningRate: 1e-3 }, train }),
    where: "fit",
    option: "train",
    value: train,
    fix: /max_position_embeddings 20 or more, or prepare the data with maxLength 8/,
  },
];

for (const m of MISTAKES)
  test(`${m.call} is refused, naming ${m.option}, the value and the fix`, async () => {
    let error: unknown;
    try {
      await m.run();
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof OptionError, `${m.call} threw ${String(error)}, not an OptionError`);
    assert.equal(error.where, m.where);
    assert.equal(error.option, m.option);
    const shown = `${m.where}: ${m.option} = ${describeValue(m.value)} `;
    assert.ok(error.message.startsWith(shown), `the message starts with "${shown}": ${error.message}`);
    assert.match(error.fix ?? "", m.fix);
    assert.ok(error.message.endsWith(error.fix!), "the fix is in the message");
  });

test("strings show quoted with their type, so a string that reads as a number is not mistaken for one", () => {
  assert.equal(describeValue("1e-3"), '"1e-3" (a string)');
  assert.equal(describeValue(1e-3), "0.001");
  assert.equal(describeValue(k.zeros([2, 3], "i32")), "an array i32[2,3]");
  assert.equal(describeValue(new Int32Array(3)), "an Int32Array of 3");
  assert.equal(describeValue(train), "a TFRecordDataset");
});

test("host data of another element type is converted by value, not reinterpreted", () => {
  // The bits of int32 7 read as f32 would be 9.8e-45.
  assert.deepEqual([...k.fromHost(new Int32Array([7, 1]), [2], "f32").dataSync()], [7, 1]);
  assert.deepEqual([...k.fromHost(new Float64Array([3, -2]), [2], "i32").dataSync()], [3, -2]);
  assert.deepEqual([...k.array(new Int32Array([1, 0, 2]), { dtype: "bool" }).dataSync()], [1, 0, 1]);
  assert.equal(k.fromHost(new Float32Array([0.5]), [1], "bf16").item(), 0.5);
});

test("correct calls still work: options that are all known and consistent pass", async () => {
  const r = await generator.generate("We", { greedy: true, maxNewTokens: 2, stopAtEos: false });
  assert.equal(r.tokenIds[0]!.length, 2);
  // Sampling settings at their defaults change nothing under greedy decoding (kiln generate fills them all in).
  const filled = await generator.generate("We", { greedy: true, maxNewTokens: 2, stopAtEos: false, temperature: 1, topK: 50, topP: 1 });
  assert.deepEqual(filled.tokenIds, r.tokenIds);
  const [first] = await fill.call("The [MASK].", { topK: 2 });
  assert.equal(typeof first!.score, "number");
});
