// text-classification: transformers.js' result shapes ([{label, score}], a flat list for several texts
// at top-k 1, a list per text otherwise), scores from the model's own logits (softmax, or a sigmoid for
// multi-label models), pairs ({ text, textPair }, or [text, pair] in a list) as [CLS] a [SEP] b [SEP],
// and bad inputs refused by name.
import test from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { loadTokenizer, saveTokenizer } from "../../src/text/index.js";
import { classifierConfig, createSequenceClassifier, presetConfig, saveModel } from "../../src/models/index.js";
import type { Params } from "../../src/models/language-model.js";
import { pipeline, TextClassificationPipeline, type ClassificationResult } from "../../src/pipelines/index.js";
import { OptionError } from "../../src/core/option-error.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-text-cls-");
const tokenizer = await loadTokenizer((await makeTestCorpus(2, 300)).tokenizerDir);
const LABELS = ["economy", "defense", "health", "education"];

function classifier(over: Record<string, unknown> = {}, problemType?: "multi_label_classification" | "regression", labels = LABELS) {
  const base = { ...presetConfig("mlm-tiny", tokenizer, 64), model_type: "bert", type_vocab_size: 2, max_position_embeddings: 64 };
  const config = classifierConfig({ ...base, initializer_range: 0.3, ...over }, "test", { labels, problemType });
  const model = createSequenceClassifier(config);
  return { model, params: k.jit((key: k.Array) => model.init(key))(k.randomKey(4)) as Params };
}

const { model, params } = classifier();
const dir = join(root, "model");
await saveModel(dir, model, params);
await saveTokenizer(tokenizer, dir);
const classify = await pipeline("text-classification", dir);

/** The model's softmax over the classes for one row of ids and token types. */
function probabilities(ids: number[], types: number[], sigmoid = false, m = model, p = params): Float32Array {
  const shape = [1, ids.length];
  const logits = m.logits(p, k.array(Int32Array.from(ids), { shape }), k.ones(shape, "i32"), {
    tokenTypeIds: k.array(Int32Array.from(types), { shape }),
  });
  return (sigmoid ? k.sigmoid(logits) : k.softmax(logits, -1)).dataSync() as Float32Array;
}

function ranked(probs: Float32Array): ClassificationResult[] {
  return [...probs.keys()].sort((a, b) => probs[b]! - probs[a]!).map((i) => ({ label: LABELS[i]!, score: probs[i]! }));
}

function close(got: ClassificationResult[], want: ClassificationResult[]): void {
  assert.deepEqual(
    got.map((r) => r.label),
    want.map((r) => r.label),
  );
  got.forEach((r, i) => assert.ok(Math.abs(r.score - want[i]!.score) < 1e-5, `${r.label}: ${r.score} vs ${want[i]!.score}`));
}

const TEXT = "The economy is growing again.";
const OTHER = "We will defend our freedom and our allies abroad.";

test("one text: [{label, score}] of the best class; topK 2 and null rank the model's softmax", async () => {
  const ids = tokenizer.encode(TEXT);
  const want = ranked(
    probabilities(
      ids,
      ids.map(() => 0),
    ),
  );
  assert.equal(classify.task, "text-classification");
  assert.deepEqual(classify.notices, []);
  const best = await classify(TEXT);
  assert.equal(best.length, 1);
  close(best, want.slice(0, 1));
  close(await classify(TEXT, { topK: 2 }), want.slice(0, 2));
  const all = await classify(TEXT, { topK: null });
  close(all, want);
  assert.ok(Math.abs(all.reduce((s, r) => s + r.score, 0) - 1) < 1e-5);
});

test("several texts: one best class each at topK 1, one list each otherwise; batching changes no score", async () => {
  const alone = [
    ranked(
      probabilities(
        tokenizer.encode(TEXT),
        tokenizer.encode(TEXT).map(() => 0),
      ),
    ),
  ];
  alone.push(
    ranked(
      probabilities(
        tokenizer.encode(OTHER),
        tokenizer.encode(OTHER).map(() => 0),
      ),
    ),
  );
  const flat = (await classify([TEXT, OTHER])) as ClassificationResult[];
  assert.equal(flat.length, 2);
  close(flat, [alone[0]![0]!, alone[1]![0]!]);
  const nested = (await classify([TEXT, OTHER], { topK: 3 })) as ClassificationResult[][];
  assert.equal(nested.length, 2);
  nested.forEach((r, i) => close(r, alone[i]!.slice(0, 3)));
});

test("a pair is [CLS] text [SEP] pair [SEP] with the second text of token type 1", async () => {
  const a = [tokenizer.clsId, ...tokenizer.encode(TEXT, { addSpecialTokens: false }), tokenizer.sepId];
  const b = [...tokenizer.encode(OTHER, { addSpecialTokens: false }), tokenizer.sepId];
  const want = ranked(probabilities([...a, ...b], [...a.map(() => 0), ...b.map(() => 1)]));
  close(await classify({ text: TEXT, textPair: OTHER }, { topK: null }), want);
  const listed = (await classify([[TEXT, OTHER], TEXT], { topK: null })) as ClassificationResult[][];
  close(listed[0]!, want);
  assert.equal(listed.length, 2, "in a list, [text, pair] is one input");
  assert.equal(((await classify([TEXT, OTHER])) as ClassificationResult[]).length, 2, "a list of two strings is two texts");
  const untyped = ranked(
    probabilities(
      [...a, ...b],
      [...a, ...b].map(() => 0),
    ),
  );
  assert.notDeepEqual(
    want.map((r) => r.score),
    untyped.map((r) => r.score),
    "the token types matter",
  );
});

test("a multi-label classifier scores each class with a sigmoid", async () => {
  const multi = classifier({}, "multi_label_classification");
  const pipe = new TextClassificationPipeline(multi.model, multi.params, tokenizer);
  const ids = tokenizer.encode(TEXT);
  const want = ranked(
    probabilities(
      ids,
      ids.map(() => 0),
      true,
      multi.model,
      multi.params,
    ),
  );
  const got = await pipe.call(TEXT, { topK: null });
  close(got, want);
  assert.ok(got.reduce((s, r) => s + r.score, 0) > 1.2, "independent per-class scores");
});

test("a regression model's score is its raw output", async () => {
  const reg = classifier({}, "regression", ["rating"]);
  const pipe = new TextClassificationPipeline(reg.model, reg.params, tokenizer);
  const ids = tokenizer.encode(TEXT);
  const shape = [1, ids.length];
  const raw = reg.model.logits(reg.params, k.array(Int32Array.from(ids), { shape }), k.ones(shape, "i32")).dataSync() as Float32Array;
  const [got] = await pipe.call(TEXT);
  assert.equal(got!.label, "rating");
  assert.ok(Math.abs(got!.score - raw[0]!) < 1e-5, `${got!.score} vs ${raw[0]}`);
});

test("bad inputs are refused by name: topK, a non-text, a text too long, another tokenizer", async () => {
  await assert.rejects(classify(TEXT, { topK: 0 }), (e: unknown) => e instanceof OptionError && e.option === "topK");
  await assert.rejects(
    classify([TEXT, 42 as unknown as string]),
    (e: unknown) => e instanceof OptionError && e.option === "texts[1]" && /neither a text nor a pair/.test(e.message),
  );
  await assert.rejects(
    classify(TEXT.repeat(40)),
    (e: unknown) => e instanceof OptionError && /tokens long; this model takes at most 64/.test(e.message),
  );
  await assert.rejects(classify(TEXT, { topk: 2 } as never), /topk/);
  const other = classifier({ vocab_size: tokenizer.vocabSize + 1 });
  assert.throws(
    () => new TextClassificationPipeline(other.model, other.params, tokenizer),
    (e: unknown) => e instanceof OptionError && e.option === "tokenizer" && /vocab_size/.test(e.message),
  );
});
