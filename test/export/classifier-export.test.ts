// `kiln export` of sequence classifiers: a BertForSequenceClassification (two token types) and a
// RobertaForSequenceClassification directory export to ONNX, and transformers.js' pipeline("text-classification")
// on the exported directory gives Kiln's pipeline's and `kiln classify`'s labels and scores; the BERT graph
// takes token_type_ids, so a sentence pair (Kiln's encodePair) scores through onnxruntime-node as Kiln scores it;
// a GPT-2 classifier (no transformers.js class) gives Kiln's logits through onnxruntime-node, and a fixed
// signature takes exactly its shape. The classifiers are tiny and random: the test is of the export, not of training.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import * as ort from "onnxruntime-node";
import { env, pipeline as transformersPipeline } from "@huggingface/transformers";
import * as k from "../../src/index.js";
import { loadTokenizer, saveTokenizer } from "../../src/text/index.js";
import { classifierConfig, createSequenceClassifier, presetConfig, saveModel } from "../../src/models/index.js";
import type { Params } from "../../src/models/language-model.js";
import { pipeline, type ClassificationResult } from "../../src/pipelines/index.js";
import { kiln, maxAbsDiff, padBatch } from "../helpers/hf-interop.js";
import { makeTestCorpus, sotuSlice } from "../helpers/sotu-slice.js";
import { tempDir } from "../helpers/temp-dir.js";

const TOLERANCE = 1e-4;
const MAX_LENGTH = 64;
const LABELS = ["economy", "defense", "health", "education"];

const root = tempDir("kiln-export-classifier-");
const tokenizer = await loadTokenizer((await makeTestCorpus(2, 300)).tokenizerDir);

/** Sentences of a few speeches: short ones (the 32-token program) and longer ones (the 64-token one). */
const sentences = sotuSlice(3)
  .lines.flatMap((l) => l.split(/(?<=[.!?])\s+/))
  .filter((s) => s.length > 20);
const short = sentences.filter((s) => tokenizer.encode(s).length <= 32).slice(0, 4);
const long = sentences.filter((s) => tokenizer.encode(s).length > 32 && tokenizer.encode(s).length <= MAX_LENGTH).slice(0, 2);
const TEXTS = [...short, ...long];

/** A random classifier of the family `over` names, saved with the tokenizer under root/NAME and exported. */
async function exportedClassifier(name: string, preset: string, over: Record<string, unknown>) {
  const base = { ...presetConfig(preset, tokenizer, MAX_LENGTH), initializer_range: 0.3, ...over };
  const model = createSequenceClassifier(classifierConfig(base, name, { labels: LABELS }));
  const params = k.jit((key: k.Array) => model.init(key))(k.randomKey(7)) as Params;
  const dir = join(root, name);
  await saveModel(dir, model, params);
  await saveTokenizer(tokenizer, dir);
  const log = kiln("export", "--model", dir, "--format", "onnx", "--max-length", String(MAX_LENGTH));
  return { dir, model, params, log };
}

function close(theirs: ClassificationResult[], ours: ClassificationResult[], what: string): number {
  assert.deepEqual(
    theirs.map((r) => r.label),
    ours.map((r) => r.label),
    what,
  );
  const worst = maxAbsDiff(
    theirs.map((r) => r.score),
    ours.map((r) => r.score),
  );
  assert.ok(worst < TOLERANCE, `${what}: scores differ by ${worst}`);
  return worst;
}

const bert = await exportedClassifier("bert", "mlm-tiny", { model_type: "bert", type_vocab_size: 2, max_position_embeddings: MAX_LENGTH });
const roberta = await exportedClassifier("roberta", "mlm-tiny", {});

for (const c of [bert, roberta])
  test(`${c.model.architecture}: transformers.js' text-classification pipeline on the export gives Kiln's labels and scores`, async (t) => {
    assert.ok(TEXTS.length === 6, "four texts under 32 tokens and two over");
    assert.match(c.log, /outputs logits; dynamic batch and length, at most 64 tokens/);
    const config = JSON.parse(readFileSync(join(c.dir, "config.json"), "utf8"));
    assert.deepEqual(config.architectures, [c.model.architecture]);
    env.allowRemoteModels = false;
    env.localModelPath = root;
    const theirs = await transformersPipeline("text-classification", basename(c.dir));
    const ours = await pipeline("text-classification", c.dir);
    let worst = 0;
    for (const text of TEXTS) {
      const all = (await theirs(text, { top_k: LABELS.length })) as ClassificationResult[];
      worst = Math.max(worst, close(all, await ours(text, { topK: null }), text));
    }
    // A batch: transformers.js pads the texts to the longest, the graph runs each row alone.
    const batch = (await theirs(TEXTS)) as ClassificationResult[];
    worst = Math.max(worst, close(batch, await ours(TEXTS), "a batch of 6"));
    // `kiln classify --json` answers as the pipeline does.
    const cli = JSON.parse(kiln("classify", "--model", c.dir, TEXTS[0]!, "--all", "--json")) as ClassificationResult[];
    worst = Math.max(worst, close((await theirs(TEXTS[0]!, { top_k: LABELS.length })) as ClassificationResult[], cli, "kiln classify"));
    t.diagnostic(`${c.model.architecture}: ${TEXTS.length} texts and a batch agree; largest score difference ${worst.toExponential(2)}`);
  });

/** Feeds for onnxruntime: rows right-padded, and token types where the graph takes them. */
function feeds(rows: { ids: number[]; typeIds: number[] }[], padId: number, withTypes: boolean): Record<string, ort.Tensor> {
  const b = padBatch(
    rows.map((r) => r.ids),
    padId,
  );
  const int64 = (a: Int32Array) => new ort.Tensor("int64", BigInt64Array.from(a, BigInt), b.shape);
  const types = new Int32Array(b.inputIds.length);
  rows.forEach((r, i) => types.set(r.typeIds, i * b.shape[1]));
  return { input_ids: int64(b.inputIds), attention_mask: int64(b.attentionMask), ...(withTypes ? { token_type_ids: int64(types) } : {}) };
}

function softmax(row: ArrayLike<number>): number[] {
  const top = Math.max(...Array.from(row));
  const e = Array.from(row, (x) => Math.exp(x - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

test("BERT's graph takes token_type_ids: sentence pairs (encodePair, the second text of type 1) score as Kiln's pipeline", async (t) => {
  const session = await ort.InferenceSession.create(join(bert.dir, "onnx", "model.onnx"));
  assert.deepEqual(session.inputNames, ["input_ids", "attention_mask", "token_type_ids"]);
  // Two pairs: one under 32 tokens, one over 32 (the second traced program) that fits the model.
  const over32 = short
    .flatMap((x) => short.map((y) => [x, y] as const))
    .find(([x, y]) => x !== y && tokenizer.encodePair(x, y).ids.length <= MAX_LENGTH)!;
  const pairs = [["Taxes fell last year.", "The economy grew."] as const, over32];
  const rows = pairs.map(([a, b]) => tokenizer.encodePair(a, b));
  assert.ok(rows[0]!.ids.length <= 32 && rows[1]!.ids.length > 32, `pairs of ${rows.map((r) => r.ids.length).join(" and ")} tokens`);
  assert.ok(rows.every((r) => r.typeIds.includes(1)));
  const out = await session.run(feeds(rows, tokenizer.padId, true));
  assert.deepEqual(out.logits!.dims, [2, LABELS.length]);
  const logits = out.logits!.data as Float32Array;
  const ours = await pipeline("text-classification", bert.dir);
  let worst = 0;
  for (const [i, [text, textPair]] of pairs.entries()) {
    const want = await ours({ text, textPair }, { topK: null });
    const probs = softmax(logits.subarray(i * LABELS.length, (i + 1) * LABELS.length));
    const theirs = LABELS.map((label, c) => ({ label, score: probs[c]! })).sort((a, b) => b.score - a.score);
    worst = Math.max(worst, close(theirs, want, `pair ${i}`));
  }
  // Token types matter to this model: all of type 0, the scores move.
  const untyped = await session.run(
    feeds(
      rows.map((r) => ({ ids: r.ids, typeIds: r.typeIds.map(() => 0) })),
      tokenizer.padId,
      true,
    ),
  );
  assert.ok(maxAbsDiff(untyped.logits!.data as Float32Array, logits) > 1e-3, "token_type_ids reach the model");
  t.diagnostic(`2 pairs agree; largest score difference ${worst.toExponential(2)}`);
});

test("RoBERTa's graph takes no token_type_ids; a fixed signature (--batch 2 --max-length 32) takes exactly [2, 32]", async () => {
  const session = await ort.InferenceSession.create(join(roberta.dir, "onnx", "model.onnx"));
  assert.deepEqual(session.inputNames, ["input_ids", "attention_mask"]);
  const fixedDir = join(root, "roberta-fixed");
  kiln("export", "--model", roberta.dir, "--format", "onnx", "--batch", "2", "--max-length", "32", "--out", fixedDir);
  const fixed = await ort.InferenceSession.create(join(fixedDir, "onnx", "model.onnx"));
  const rows = short.slice(0, 2).map((s) => ({ ids: tokenizer.encode(s), typeIds: [] }));
  // Padded to 32 with a row of pads: the signature's length.
  const padded = [...rows, { ids: new Array<number>(32).fill(tokenizer.padId), typeIds: [] }];
  const all = feeds(padded, tokenizer.padId, false);
  const cut = (x: ort.Tensor) => new ort.Tensor("int64", (x.data as BigInt64Array).subarray(0, 64), [2, 32]);
  const out = await fixed.run({ input_ids: cut(all.input_ids!), attention_mask: cut(all.attention_mask!) });
  const dynamic = await session.run(feeds(rows, tokenizer.padId, false));
  const diff = maxAbsDiff(out.logits!.data as Float32Array, dynamic.logits!.data as Float32Array);
  assert.ok(diff < TOLERANCE, `fixed and dynamic logits differ by ${diff}`);
  await assert.rejects(fixed.run(feeds(rows, tokenizer.padId, false)), /dimension|shape|Got invalid/i);
});

test("a GPT-2 classifier (its last real token) exports: onnxruntime-node gives Kiln's logits for a padded batch", async (t) => {
  const gpt2 = await exportedClassifier("gpt2", "gpt2-tiny", { pad_token_id: tokenizer.padId });
  const session = await ort.InferenceSession.create(join(gpt2.dir, "onnx", "model.onnx"));
  const rows = [short[0]!, long[0]!, short[1]!].map((s) => ({ ids: tokenizer.encode(s), typeIds: [] }));
  const out = await session.run(feeds(rows, tokenizer.padId, false));
  const b = padBatch(
    rows.map((r) => r.ids),
    tokenizer.padId,
  );
  const want = gpt2.model
    .logits(gpt2.params, k.array(b.inputIds, { shape: b.shape }), k.array(b.attentionMask, { shape: b.shape }))
    .dataSync() as Float32Array;
  const diff = maxAbsDiff(out.logits!.data as Float32Array, want);
  t.diagnostic(`GPT2ForSequenceClassification [${b.shape}]: largest logit difference ${diff.toExponential(2)}`);
  assert.ok(diff < TOLERANCE, `logits differ by ${diff}`);
});
