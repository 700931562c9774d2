// fill-mask: Hugging Face's result shape, probabilities from the model's softmax at the mask, and the
// sequence with the prediction put in.
import test from "node:test";
import assert from "node:assert/strict";
import { cpSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { loadTokenizer } from "../../src/text/index.js";
import { createMaskedLM, presetConfig } from "../../src/models/index.js";
import { FillMaskPipeline } from "../../src/pipelines/fill-mask.js";
import { saveModel } from "../../src/models/pretrained.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { kilnRun } from "../helpers/hf-interop.js";

const corpus = await makeTestCorpus(3, 500);
const tokenizer = await loadTokenizer(corpus.tokenizerDir);
const config = {
  ...presetConfig("mlm-small", tokenizer, 64),
  hidden_size: 32,
  intermediate_size: 64,
  num_hidden_layers: 1,
  num_attention_heads: 2,
};
const model = createMaskedLM(config);
const params = k.jit((key: k.Array) => model.init(key))(k.randomKey(1));
const pipe = new FillMaskPipeline(model, params, tokenizer);

test("top-k results: {score, token, token_str, sequence}, best first, matching the model's own probabilities", async () => {
  const text = "The people of the United [MASK].";
  const results = await pipe.call(text, { topK: 4 });
  assert.equal(results.length, 4);
  for (let i = 1; i < results.length; i++) assert.ok(results[i - 1]!.score >= results[i]!.score);
  const ids = tokenizer.encode(text);
  const at = ids.indexOf(tokenizer.maskId);
  const logits = model.lmHead(
    params,
    model.hidden(params, k.array(Int32Array.from(ids), { shape: [1, ids.length] }), k.ones([1, ids.length], "i32")),
  );
  const probs = k.softmax(logits, -1).dataSync() as Float32Array;
  const row = probs.subarray(at * tokenizer.vocabSize, (at + 1) * tokenizer.vocabSize);
  const best = [...row.keys()].sort((a, b) => row[b]! - row[a]!)[0]!;
  assert.equal(results[0]!.token, best);
  assert.ok(Math.abs(results[0]!.score - row[best]!) < 1e-5, "padding to a length bucket does not change the prediction");
  const filled = ids.slice();
  filled[at] = results[0]!.token;
  assert.equal(results[0]!.sequence, tokenizer.decode(filled, { skipSpecialTokens: true }));
  assert.equal(results[0]!.token_str, tokenizer.decode([results[0]!.token]));
});

test("two masks give a list per mask with eachMask, and are refused without it; no mask is a clear error", async () => {
  const two = await pipe.call("[MASK] of the [MASK].", { topK: 2, eachMask: true });
  assert.equal(two.length, 2);
  assert.equal(two[0]!.length, 2);
  // As transformers does: each sequence fills one mask and keeps the special tokens, so the other mask shows.
  assert.match(two[0]![0]!.sequence, /^\[CLS\] .*\[MASK\].*\[SEP\]$/);
  assert.match(two[1]![0]!.sequence, /^\[CLS\]\[MASK\] .*\[SEP\]$/);
  await assert.rejects(pipe.call("nothing to fill"), /no mask token .* \[MASK\]/);
  await assert.rejects(
    pipe.call("[MASK] of the [MASK]."),
    /text = "\[MASK\] of the \[MASK\]\." \(a string\) has 2 mask tokens.*eachMask: true/,
  );
});

test("a list of texts gives one result list per text, the same as one call each", async () => {
  const texts = ["The people of the United [MASK].", "[MASK] of the Union."];
  const each = await pipe.call(texts, { topK: 3 });
  assert.equal(each.length, 2);
  for (const [i, text] of texts.entries()) assert.deepEqual(each[i], await pipe.call(text, { topK: 3 }));
});

test("a tokenizer of another vocabulary, or with ids outside the embedding table, is refused with both numbers", async () => {
  const other = await loadTokenizer((await makeTestCorpus(2, 300)).tokenizerDir);
  const sources = { model: "m/config.json", tokenizer: "t/tokenizer.json" };
  assert.throws(
    () => new FillMaskPipeline(model, params, other, sources),
    (e: Error) =>
      e.message ===
      'fill-mask: tokenizer = "t/tokenizer.json" (a string) has 300 tokens but the model (m/config.json) has vocab_size 500. ' +
        "Use the tokenizer saved with the model",
  );
  const at = (over: Partial<{ maskId: number; padId: number }>) =>
    Object.assign(Object.create(tokenizer) as typeof tokenizer, over) as typeof tokenizer;
  assert.throws(
    () => new FillMaskPipeline(model, params, at({ maskId: 500 }), sources),
    new RegExp(
      'tokenizer = "t\\/tokenizer\\.json" \\(a string\\) has mask id 500, ' +
        "outside the embedding table of the model \\(m\\/config\\.json\\), " +
        "which has vocab_size 500",
    ),
  );
  assert.throws(
    () => new FillMaskPipeline(model, params, at({ padId: 1 })),
    /has pad id 1 but the model \(its config\) has pad_token_id 3/,
  );
});

test("kiln fill-mask refuses a model directory holding another vocabulary's tokenizer, or --tokenizer of another", async () => {
  const other = await makeTestCorpus(2, 300);
  const dir = join(corpus.dir, "model");
  await saveModel(dir, model, params);
  cpSync(corpus.tokenizerDir, dir, { recursive: true });
  const good = kilnRun("fill-mask", "--model", dir, "--tokenizer", corpus.tokenizerDir, "The [MASK] of the Union.", "--top-k", "1");
  assert.equal(good.code, 0, good.err);
  let r = kilnRun("fill-mask", "--model", dir, "--tokenizer", other.tokenizerDir, "The [MASK] of the Union.");
  assert.equal(r.code, 2, "a tokenizer that does not match is refused before any work");
  assert.equal(
    r.err.trim(),
    `kiln fill-mask: --tokenizer ${JSON.stringify(other.tokenizerDir)}: has 300 tokens ` +
      `but the model (${join(dir, "config.json")}) has vocab_size 500. Use the tokenizer saved with the model`,
  );
  cpSync(other.tokenizerDir, dir, { recursive: true });
  r = kilnRun("fill-mask", "--model", dir, "The [MASK] of the Union.");
  assert.equal(r.code, 2);
  assert.match(
    r.err,
    new RegExp(
      '^kiln: fill-mask: tokenizer = ".*model/tokenizer\\.json" \\(a string\\) has 300 tokens ' +
        "but the model \\(.*model/config\\.json\\) has vocab_size 500",
    ),
  );
});
