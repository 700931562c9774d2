// Sequence classifiers in Kiln alone: a masked LM's and a causal LM's directories load as classifiers
// with a fresh head named in a notice (the LM head reported unused); a classifier saves and loads back
// with the same logits and no notice; the head reads the first token (encoders) or the last real token
// (decoders), so padding never changes a row's logits; and wrong settings are refused by name.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/index.js";
import {
  classifierConfig,
  createModel,
  createSequenceClassifier,
  loadModel,
  presetConfig,
  saveModel,
  type SequenceClassifier,
  BertForSequenceClassification,
  LlamaForSequenceClassification,
  RobertaForSequenceClassification,
} from "../../src/models/index.js";
import type { Params } from "../../src/models/language-model.js";
import { OptionError } from "../../src/core/option-error.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-seq-cls-");
const IDS = { vocabSize: 120, padId: 3, clsId: 0, sepId: 1 };
const LABELS = ["no", "yes", "maybe"];

async function saveBase(name: string, preset: "mlm-tiny" | "llama-tiny" | "gpt2-tiny"): Promise<string> {
  const model = createModel({ ...presetConfig(preset, IDS, 32), initializer_range: 0.2 });
  const dir = join(root, name);
  await saveModel(dir, model, k.jit((key: k.Array) => model.init(key))(k.randomKey(5)));
  return dir;
}

/** Right-padded rows of ids (none of them the pad id), with their mask. */
function rows(lists: number[][], len: number): { ids: k.Array; mask: k.Array } {
  const ids = new Int32Array(lists.length * len).fill(IDS.padId),
    mask = new Int32Array(lists.length * len);
  lists.forEach((r, i) => {
    ids.set(r, i * len);
    mask.fill(1, i * len, i * len + r.length);
  });
  return { ids: k.array(ids, { shape: [lists.length, len] }), mask: k.array(mask, { shape: [lists.length, len] }) };
}

async function logitsOf(model: SequenceClassifier, params: Params, lists: number[][], len: number): Promise<Float32Array> {
  const { ids, mask } = rows(lists, len);
  return (await k
    .jit((p: Params, i: k.Array, m: k.Array) => model.logits(p, i, m))(params, ids, mask)
    .data()) as Float32Array;
}

const SHORT = [0, 10, 11, 12, 1];
const LONG = [0, 20, 21, 22, 23, 24, 25, 1];

for (const [family, preset, head, lmHead] of [
  [
    "roberta",
    "mlm-tiny",
    ["classifier.dense.weight", "classifier.dense.bias", "classifier.out_proj.weight", "classifier.out_proj.bias"],
    "lm_head",
  ],
  ["llama", "llama-tiny", ["score.weight"], undefined],
  ["gpt2", "gpt2-tiny", ["score.weight"], undefined],
] as const) {
  test(`${family}: a ${preset} directory loads as a classifier with a fresh head, reported; saved, it loads back the same`, async () => {
    const dir = await saveBase(family, preset);
    const loaded = await loadModel(dir, { task: "sequence-classification", labels: LABELS });
    assert.equal(loaded.head, "initialized");
    assert.equal(loaded.model.config.num_labels, 3);
    assert.deepEqual(loaded.model.config.label2id, { no: 0, yes: 1, maybe: 2 });
    const fresh = loaded.notices.find((n) => n.includes("newly initialized"));
    assert.ok(fresh, loaded.notices.join("\n"));
    for (const name of head) assert.ok(fresh.includes(name), `${fresh} names ${name}`);
    if (lmHead)
      assert.ok(
        loaded.notices.some((n) => n.includes("unused") && n.includes(lmHead)),
        loaded.notices.join("\n"),
      );

    const out = join(root, `${family}-classifier`);
    await saveModel(out, loaded.model, loaded.params);
    const config = JSON.parse(readFileSync(join(out, "config.json"), "utf8"));
    assert.deepEqual(config.architectures, [loaded.model.architecture]);
    assert.deepEqual(config.id2label, { 0: "no", 1: "yes", 2: "maybe" });
    assert.equal(config.num_labels, undefined, "transformers counts the labels from id2label");
    const back = await loadModel(out);
    assert.equal(back.task, "sequence-classification");
    if (back.task !== "sequence-classification") return;
    assert.equal(back.head, "loaded");
    assert.deepEqual(back.notices, []);
    const before = await logitsOf(loaded.model, loaded.params, [SHORT, LONG], 8);
    const after = await logitsOf(back.model, back.params, [SHORT, LONG], 8);
    assert.deepEqual(after, before);
    assert.equal(before.length, 6);
  });
}

for (const preset of ["mlm-tiny", "llama-tiny", "gpt2-tiny"] as const) {
  test(`${preset}: padding never changes a row's logits (first token for encoders, last real token for decoders)`, async () => {
    const config = classifierConfig({ ...presetConfig(preset, IDS, 32), initializer_range: 0.3 }, "test", { numLabels: 4 });
    const model = createSequenceClassifier(config);
    const params = k.jit((key: k.Array) => model.init(key))(k.randomKey(2));
    const alone = await logitsOf(model, params, [SHORT], SHORT.length);
    const padded = await logitsOf(model, params, [LONG, SHORT], 16);
    const row = padded.slice(4, 8);
    for (let i = 0; i < 4; i++) assert.ok(Math.abs(row[i]! - alone[i]!) < 1e-5, `class ${i}: ${row[i]} vs ${alone[i]}`);
    const longAlone = await logitsOf(model, params, [LONG], LONG.length);
    assert.notDeepEqual(Array.from(longAlone), Array.from(alone), "different texts, different logits");
  });
}

test("BERT's second segment reads token_type_embeddings row 1", async () => {
  const config = classifierConfig(
    { ...presetConfig("mlm-tiny", IDS, 32), model_type: "bert", type_vocab_size: 2, max_position_embeddings: 32, initializer_range: 0.3 },
    "test",
    {},
  );
  const model = createSequenceClassifier(config);
  assert.equal(model.architecture, "BertForSequenceClassification");
  assert.deepEqual(model.headNames, ["bert.pooler.dense.weight", "bert.pooler.dense.bias", "classifier.weight", "classifier.bias"]);
  const params = k.jit((key: k.Array) => model.init(key))(k.randomKey(3));
  const { ids, mask } = rows([LONG], LONG.length);
  const types = k.array(Int32Array.from([0, 0, 0, 0, 1, 1, 1, 1]), { shape: [1, 8] });
  const zero = (await model.logits(params, ids, mask).data()) as Float32Array;
  const typed = (await model.logits(params, ids, mask, { tokenTypeIds: types }).data()) as Float32Array;
  const same = (await model.logits(params, ids, mask, { tokenTypeIds: k.zeros([1, 8], "i32") }).data()) as Float32Array;
  assert.deepEqual(same, zero);
  assert.notDeepEqual(Array.from(typed), Array.from(zero));
});

for (const family of ["bert", "roberta"] as const) {
  test(`${family}: the head drops out what it reads at classifier_dropout (else hidden_dropout_prob), inverted as torch's`, async () => {
    const make = (dropout: Record<string, unknown>) =>
      createSequenceClassifier(
        classifierConfig(
          { ...presetConfig("mlm-tiny", IDS, 32), model_type: family, initializer_range: 0.3, attention_probs_dropout_prob: 0, ...dropout },
          "test",
          {},
        ),
      );
    // 512 copies of one row: each row draws its own masks, so their mean is the expectation.
    const n = 512;
    const { ids, mask } = rows(
      Array.from({ length: n }, () => LONG),
      LONG.length,
    );
    const run = async (model: SequenceClassifier, params: Params, key: k.Array | null) =>
      (await k
        .jit((p: Params, i: k.Array, m: k.Array) => model.logits(p, i, m, { dropoutKey: key }))(params, ids, mask)
        .data()) as Float32Array;
    const none = make({ hidden_dropout_prob: 0, classifier_dropout: 0 });
    const params = k.jit((key: k.Array) => none.init(key))(k.randomKey(4));
    const plain = await run(none, params, null);
    assert.deepEqual(await run(none, params, k.randomKey(9)), plain, "no dropout anywhere: training logits are evaluation's");
    // Only the head drops out (the encoder's rate is 0): rows differ.
    for (const head of [
      { hidden_dropout_prob: 0, classifier_dropout: 0.5 },
      { hidden_dropout_prob: 0.5, classifier_dropout: null },
    ]) {
      const model = make(head);
      const dropped = await run(model, params, k.randomKey(9));
      if (head.classifier_dropout === null) continue; // hidden_dropout_prob drops the encoder too: only the rate is checked
      assert.notDeepEqual(Array.from(dropped.slice(0, 2)), Array.from(dropped.slice(2, 4)), "each row its own mask");
      // BERT's head is linear after its dropout, so the rows' mean is the plain logits; RoBERTa's drops out
      // before a tanh too, whose mean is not.
      if (family === "roberta") continue;
      const spread = Math.max(...Array.from(plain.slice(0, 2), Math.abs));
      for (let c = 0; c < 2; c++) {
        let mean = 0;
        for (let r = 0; r < n; r++) mean += dropped[2 * r + c]! / n;
        assert.ok(Math.abs(mean - plain[c]!) < 0.15 * spread + 0.02, `class ${c}: mean ${mean} vs ${plain[c]}`);
      }
    }
    // classifier_dropout left null falls back to hidden_dropout_prob: with the encoder's dropout at 0.5 and
    // the head's at 0, the head's share is gone; at null it is not, so the two differ.
    const encoderOnly = await run(make({ hidden_dropout_prob: 0.5, classifier_dropout: 0 }), params, k.randomKey(9));
    const both = await run(make({ hidden_dropout_prob: 0.5, classifier_dropout: null }), params, k.randomKey(9));
    assert.notDeepEqual(Array.from(both), Array.from(encoderOnly));
  });
}

test("classifier_dropout outside [0, 1) is refused by name", () => {
  assert.throws(
    () => classifierConfig({ ...presetConfig("mlm-tiny", IDS, 32), classifier_dropout: 1 }, "cfg.json", {}),
    /cfg\.json: "classifier_dropout" must be null or in \[0, 1\), got 1/,
  );
});

test("wrong settings are refused by name: labels without the task, a class count a classifier does not have, a missing head", async () => {
  const dir = await saveBase("refusals", "mlm-tiny");
  await assert.rejects(
    loadModel(dir, { task: "mlm", labels: ["a", "b"] }),
    (e: unknown) => e instanceof OptionError && e.option === "labels",
  );
  await assert.rejects(loadModel(dir, { task: "sequence-classification", labels: ["a", "a"] }), /labels .*distinct/);
  await assert.rejects(
    loadModel(dir, { task: "sequence-classification", labels: ["a", "b"], numLabels: 3 }),
    (e: unknown) => e instanceof OptionError && e.option === "numLabels" && /disagrees with labels/.test(e.message),
  );
  await assert.rejects(loadModel(dir, { task: "sequence-classification", missingHead: "error" }), /classification head is missing/);
  const loaded = await loadModel(dir, { task: "sequence-classification" });
  assert.deepEqual(loaded.model.config.id2label, { 0: "LABEL_0", 1: "LABEL_1" }, "two classes by default, as in transformers");
  const cls = join(root, "refusals-classifier");
  await saveModel(cls, loaded.model, loaded.params);
  await assert.rejects(
    loadModel(cls, { task: "sequence-classification", numLabels: 5 }),
    (e: unknown) => e instanceof OptionError && /asks for 5 classes, but .* is a classifier of 2 \(LABEL_0, LABEL_1\)/.test(e.message),
  );
  // A classifier's directory whose head is gone is damaged, not a base model.
  const config = JSON.parse(readFileSync(join(cls, "config.json"), "utf8"));
  const broken = await saveBase("broken", "mlm-tiny");
  writeFileSync(join(broken, "config.json"), JSON.stringify({ ...config, id2label: undefined }));
  rmSync(join(broken, "checksums.json"), { force: true });
  await assert.rejects(
    loadModel(broken),
    /classification head is missing .* names RobertaForSequenceClassification: the directory is incomplete/,
  );
});

test("the classes by transformers' names: fromPretrained of their own family, refused for another", async () => {
  const dir = await saveBase("classes", "mlm-tiny");
  const loaded = await RobertaForSequenceClassification.fromPretrained(dir, { numLabels: 3, seed: 1 });
  assert.ok(loaded.model instanceof RobertaForSequenceClassification);
  assert.equal(loaded.model.architecture, "RobertaForSequenceClassification");
  const plain = await loadModel(dir, { task: "sequence-classification", numLabels: 3, seed: 1 });
  assert.deepEqual(await logitsOf(loaded.model, loaded.params, [SHORT], 8), await logitsOf(plain.model, plain.params, [SHORT], 8));
  await assert.rejects(BertForSequenceClassification.fromPretrained(dir), /model_type "roberta" is not "bert"/);
  assert.throws(() => new LlamaForSequenceClassification(loaded.model.config), /needs a config with model_type "llama"/);
});

test("the forward pass's arguments are checked and named as the classifier's", () => {
  const roberta = createSequenceClassifier(classifierConfig(presetConfig("mlm-tiny", IDS, 32), "test", {}));
  const params = k.jit((key: k.Array) => roberta.init(key))(k.randomKey(0));
  const ids = k.array(Int32Array.from(SHORT), { shape: [SHORT.length] });
  assert.throws(
    () => roberta.logits(params, ids, k.ones([SHORT.length], "i32")),
    (e: unknown) => e instanceof OptionError && e.option === "inputIds" && /RobertaForSequenceClassification\.logits/.test(e.message),
  );
  const llama = createSequenceClassifier(classifierConfig(presetConfig("llama-tiny", IDS, 32), "test", {}));
  const { ids: rowIds, mask } = rows([SHORT], 5);
  assert.throws(
    () => llama.logits(k.jit((key: k.Array) => llama.init(key))(k.randomKey(0)), rowIds, mask, { tokenTypeIds: mask }),
    (e: unknown) => e instanceof OptionError && /tokenTypeIds/.test(e.message),
  );
});

for (const family of ["bert", "roberta"] as const) {
  for (const layerLoop of ["unrolled", "scan"] as const) {
    test(`${family} (${layerLoop}): the first-token-only last layer gives the full pass's first row, and the same gradients`, async () => {
      const config = { ...presetConfig("mlm-tiny", IDS, 32), model_type: family, initializer_range: 0.3 };
      const base = createModel(config) as unknown as {
        init(key: k.Array): Params;
        hidden(p: Params, ids: k.Array, mask: k.Array, opts?: Record<string, unknown>): k.Array;
      };
      const params = k.jit((key: k.Array) => base.init(key))(k.randomKey(8));
      const { ids, mask } = rows([LONG, SHORT, [0, 30, 31, 1]], LONG.length);
      const first = (p: Params, only: boolean) => {
        const h = base.hidden(p, ids, mask, { layerLoop, firstTokenOnly: only });
        return h.slice([0, 0, 0], [3, 1, h.shape[2]!]);
      };
      const whole = (await k
        .jit((p: Params) => first(p, false))(params)
        .data()) as Float32Array;
      const only = k.jit((p: Params) => base.hidden(p, ids, mask, { layerLoop, firstTokenOnly: true }))(params);
      assert.deepEqual(only.shape, [3, 1, config.hidden_size]);
      const got = (await only.data()) as Float32Array;
      for (let i = 0; i < whole.length; i++) assert.ok(Math.abs(got[i]! - whole[i]!) < 1e-5, `element ${i}: ${got[i]} vs ${whole[i]}`);
      // A loss on the first rows: its gradient reaches every layer's parameters the same way.
      const loss = (only: boolean) => (p: Params) =>
        k
          .tanh(first(p, only))
          .mul(k.sin(first(p, only)))
          .sum();
      const gradOf = async (only: boolean) =>
        (await Promise.all(k.leaves<k.Array>(k.jit(k.grad(loss(only)))(params) as k.PyTree).map((g) => g.data()))) as Float32Array[];
      const [a, b] = [await gradOf(false), await gradOf(true)];
      assert.equal(a.length, b.length);
      a.forEach((leaf, j) =>
        leaf.forEach((v, i) => assert.ok(Math.abs(v - b[j]![i]!) < 1e-5, `leaf ${j} element ${i}: ${v} vs ${b[j]![i]}`)),
      );
    });
  }
}
