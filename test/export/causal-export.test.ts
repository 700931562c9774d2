// `kiln export --format onnx` of decoders (tiny Llama and GPT-2, random init): onnxruntime-node on the graph
// gives Kiln's logits for a right-padded batch with an empty cache, and for tokens after a cache it filled
// itself (one token and many, past lengths in either traced length); transformers.js' text-generation
// pipeline on the exported directory (local files only) generates greedily the tokens and text that
// Kiln's TextGenerationPipeline does, one prompt at a time and as a left-padded batch.
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { env, pipeline, Tensor, type TextGenerationPipeline as TjsTextGeneration } from "@huggingface/transformers";
import * as k from "../../src/index.js";
import { presetConfig, createCausalLM, saveModel, type CausalLanguageModel } from "../../src/models/index.js";
import { loadModel } from "../../src/models/pretrained.js";
import { loadTokenizer, saveTokenizer } from "../../src/text/index.js";
import { TextGenerationPipeline } from "../../src/pipelines/text-generation.js";
import { kiln, kilnLogits, maxAbsDiff, padBatch, type PaddedBatch } from "../helpers/hf-interop.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { tempDir } from "../helpers/temp-dir.js";

const TOLERANCE = 1e-4;
/** Past the first traced length (32): the graph holds the step traced for 1, 32 and 48 new tokens after 0, 32 and 48. */
const MAX_LENGTH = 48;
const PROMPTS = ["The state of the Union", "We the people of the United States, in order to form", "Congress"];
const MODELS = ["llama-tiny", "gpt2-tiny"] as const;

const root = tempDir("kiln-export-causal-");
const tokenizer = await loadTokenizer((await makeTestCorpus(2, 300)).tokenizerDir);
for (const name of MODELS) {
  const model = createCausalLM({ ...presetConfig(name, tokenizer), initializer_range: 0.3 });
  const dir = join(root, name);
  await saveModel(dir, model, k.jit((key: k.Array) => model.init(key))(k.randomKey(0)));
  await saveTokenizer(tokenizer, dir);
}

interface Cache {
  [name: string]: ort.Tensor;
}

/** The graph's feeds: ids and mask of `b`, positions from `offset` on, after the cache `past` (empty when not given). */
function feeds(model: CausalLanguageModel, b: PaddedBatch, past?: Cache, offset = 0): Record<string, ort.Tensor> {
  const int64 = (a: ArrayLike<number>, dims: number[]) =>
    new ort.Tensor(
      "int64",
      BigInt64Array.from(a, (x) => BigInt(x)),
      dims,
    );
  const [batch, length] = b.shape;
  const pastLength = past ? past["present.0.key"]!.dims[2]! : 0;
  const cache: Record<string, ort.Tensor> = {};
  model.initCache(1, 1).layers.forEach((l, i) => {
    const [, heads, , d] = l.key.shape as number[];
    for (const kv of ["key", "value"])
      cache[`past_key_values.${i}.${kv}`] =
        past?.[`present.${i}.${kv}`] ?? new ort.Tensor("float32", new Float32Array(0), [batch, heads!, 0, d!]);
  });
  return {
    input_ids: int64(b.inputIds, b.shape),
    attention_mask: int64(new Int32Array(batch * (pastLength + length)).fill(1), [batch, pastLength + length]),
    position_ids: int64(
      Array.from({ length: batch * length }, (_, i) => offset + (i % length)),
      b.shape,
    ),
    ...cache,
  };
}

for (const name of MODELS) {
  const dir = join(root, name);
  test(`${name}: the export's logits are Kiln's, for a padded batch and for tokens after a cache it filled`, async (t) => {
    assert.match(
      kiln("export", "--model", dir, "--format", "onnx", "--max-length", String(MAX_LENGTH)),
      /wrote .*onnx\/model\.onnx .*outputs logits, present\.0\.key, .*present\.1\.value; dynamic batch and length, at most 48 tokens/,
    );
    const { model, params } = await loadModel(dir, { task: "causal-lm" });
    const session = await ort.InferenceSession.create(join(dir, "onnx", "model.onnx"));
    const pipe = new TextGenerationPipeline(model, params, tokenizer);
    const padded = padBatch(
      PROMPTS.map((p) => pipe.encode(p)),
      tokenizer.padId!,
    );
    const batchFeeds = feeds(model, padded);
    batchFeeds.attention_mask = new ort.Tensor("int64", BigInt64Array.from(padded.attentionMask, BigInt), padded.shape);
    const out = await session.run(batchFeeds);
    assert.deepEqual(out.logits!.dims, [...padded.shape, model.config.vocab_size]);
    assert.deepEqual(out["present.1.value"]!.dims.slice(0, 3), [3, out["present.1.value"]!.dims[1], padded.shape[1]]);
    const worst = maxAbsDiff(out.logits!.data as Float32Array, await kilnLogits(model, params, padded));
    t.diagnostic(`right-padded batch [${padded.shape}]: largest logit difference ${worst.toExponential(2)}`);
    assert.ok(worst <= TOLERANCE, `logits differ by ${worst}`);

    // 40 tokens, split after 5 (35 new tokens after a past of 5) and after 39 (1 new token after 39).
    const ids = Array.from({ length: 40 }, (_, i) => 5 + ((i * 37) % 250));
    const whole = await kilnLogits(model, params, padBatch([ids], tokenizer.padId!));
    const vocab = model.config.vocab_size;
    for (const split of [5, 39]) {
      const first = await session.run(feeds(model, padBatch([ids.slice(0, split)], tokenizer.padId!)));
      const rest = padBatch([ids.slice(split)], tokenizer.padId!);
      const next = await session.run(feeds(model, rest, first as Cache, split));
      assert.deepEqual(next["present.0.key"]!.dims[2], 40);
      const diff = maxAbsDiff(next.logits!.data as Float32Array, whole.subarray(split * vocab));
      t.diagnostic(`${40 - split} token(s) after a cache of ${split}: largest logit difference ${diff.toExponential(2)}`);
      assert.ok(diff <= TOLERANCE, `after ${split}: logits differ by ${diff}`);
    }
  });

  test(`${name}: transformers.js text-generation on the export generates Kiln's greedy tokens and text`, async (t) => {
    env.allowRemoteModels = false;
    env.localModelPath = root;
    const generator = (await pipeline("text-generation", name)) as TjsTextGeneration;
    const ours = await (await TextGenerationPipeline.fromPretrained(dir)).generate(PROMPTS, { greedy: true, maxNewTokens: 16 });
    for (const [i, ids] of ours.promptIds.entries()) {
      const input = (data: (x: number) => number) =>
        new Tensor(
          "int64",
          BigInt64Array.from(ids, (x) => BigInt(data(x))),
          [1, ids.length],
        );
      const theirs = (await generator.model.generate({
        inputs: input((x) => x),
        attention_mask: input(() => 1),
        max_new_tokens: 16,
        do_sample: false,
      })) as Tensor;
      const tokens = (theirs.tolist() as bigint[][])[0]!.slice(ids.length).map(Number);
      assert.deepEqual(tokens, ours.tokenIds[i], PROMPTS[i]);
      t.diagnostic(`${JSON.stringify(PROMPTS[i])} → ${tokens.join(" ")}`);
    }
    // The pipeline's own tokenization adds no special tokens; Kiln's prompts start with the bos token ([CLS] here).
    assert.deepEqual(
      ours.promptIds.map((p) => p[0]),
      PROMPTS.map(() => tokenizer.clsId),
    );
    const texts = (await generator(
      PROMPTS.map((p) => `[CLS]${p}`),
      { max_new_tokens: 16, do_sample: false, return_full_text: false },
    )) as { generated_text: string }[][];
    assert.deepEqual(
      texts.map((r) => r[0]!.generated_text),
      ours.texts,
    );
  });
}
