// The sequence-classification objective and metrics, held to independent computations: the weighted
// cross-entropy equals PyTorch's CrossEntropyLoss(weight=w) (Σ w_y·nll / Σ w_y) computed by hand here,
// padding rows (label -100) count nowhere, its gradient equals central finite differences (through a
// tiny classifier's parameters too); the confusion matrix the compiled step counts equals one counted
// on the host from the logits; accuracy and macro F1 equal scikit-learn's (by a hand-checked example,
// and by sklearn itself where the Python side is present).
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import { classificationLoss, rowWeights, sequenceClassificationObjective } from "../../src/train/objectives/sequence-classification.js";
import { accuracyOf, confusionMatrix, macroF1Of, perClassF1 } from "../../src/train/classification-metrics.js";
import { classifierConfig, createSequenceClassifier, presetConfig } from "../../src/models/index.js";
import type { Params } from "../../src/models/language-model.js";
import { checkGrad } from "../helpers/gradcheck.js";
import { pythonSkip, runPython } from "../helpers/python.js";
import { rng } from "../helpers/random.js";

const LABELS = [2, 0, -100, 1, 2, 2];
const WEIGHTS = [0.5, 2, 1.25];

function randomLogits(rows: number, classes: number, seed: number): Float64Array {
  const r = rng(seed);
  return Float64Array.from({ length: rows * classes }, () => 4 * r() - 2);
}

test("the weighted loss is Σ w_y·nll / Σ w_y over the labelled rows, as PyTorch's CrossEntropyLoss(weight=w)", async () => {
  const classes = 3,
    logits = randomLogits(LABELS.length, classes, 1);
  let num = 0,
    den = 0;
  LABELS.forEach((y, row) => {
    if (y === -100) return;
    const x = logits.subarray(row * classes, (row + 1) * classes);
    const lse = Math.log(x.reduce((s, v) => s + Math.exp(v), 0));
    num += WEIGHTS[y]! * (lse - x[y]!);
    den += WEIGHTS[y]!;
  });
  const labels = k.array(Int32Array.from(LABELS), { shape: [LABELS.length] });
  const w = rowWeights(labels, WEIGHTS);
  const out = classificationLoss(k.array(logits, { shape: [LABELS.length, classes], dtype: "f64" }).astype("f32"), labels, w);
  assert.ok(Math.abs((await out.lossSum.item()) / (await out.count.item()) - num / den) < 1e-5);
  assert.equal(await out.count.item(), den);
  // Without weights every labelled row weighs 1 and the padding row none.
  assert.deepEqual([...((await rowWeights(labels, undefined).data()) as Float32Array)], [1, 1, 0, 1, 1, 1]);
});

test("the weighted loss's gradient equals central finite differences, for the logits and a tiny classifier's parameters", () => {
  k.setDefaultDevice("ref:0");
  try {
    const labels = k.array(Int32Array.from(LABELS), { shape: [LABELS.length] });
    const w = rowWeights(labels, WEIGHTS);
    const mean = (logits: k.Array) => {
      const out = classificationLoss(logits, labels, w);
      return out.lossSum.div(out.count);
    };
    checkGrad("weighted_classification_loss", mean, [
      k.array(randomLogits(LABELS.length, 3, 2), { shape: [LABELS.length, 3], dtype: "f64" }),
    ]);

    const config = classifierConfig(
      {
        ...presetConfig("mlm-tiny", { vocabSize: 40, padId: 3, clsId: 0, sepId: 1 }, 8),
        architectures: ["RobertaForSequenceClassification"],
      },
      "test",
      { labels: ["a", "b", "c"] },
    );
    const model = createSequenceClassifier(config);
    const objective = sequenceClassificationObjective({ model, classWeights: WEIGHTS });
    const params = k.treeMap((p: k.Array) => p.astype("f64"), k.jit((key: k.Array) => model.init(key))(k.randomKey(1))) as Params;
    const { leaves, treedef } = k.flatten(params);
    const ids = Int32Array.from({ length: LABELS.length * 8 }, (_, i) => (i % 8 === 0 ? 0 : 5 + ((i * 7) % 30)));
    const mask = Int32Array.from({ length: LABELS.length * 8 }, (_, i) => (i % 8 < 3 + ((i / 8) | 0) ? 1 : 0));
    const batch = {
      inputIds: k.array(ids, { shape: [LABELS.length, 8] }),
      attentionMask: k.array(mask, { shape: [LABELS.length, 8] }),
      labels,
      exampleOffset: k.array(new Int32Array([0]), { shape: [] }),
      epoch: k.array(new Int32Array([0]), { shape: [] }),
    };
    // The head and one layer's attention output: small enough to difference every element.
    const names = k.leafPaths(params);
    const pick = names.flatMap((n, i) => (/classifier\.out_proj|layer\.1\.attention\.output\.dense\.bias/.test(n) ? [i] : []));
    assert.ok(pick.length >= 3, names.join(", "));
    const f = (...xs: k.Array[]) => {
      const ls = leaves.slice();
      pick.forEach((i, j) => (ls[i] = xs[j]!));
      const t = objective.targets(batch);
      const out = objective.outputs(treedef.unflatten(ls) as Params, t, { dtype: "f64" });
      return out.lossSum.div(t.count);
    };
    // The classifier hands its logits over in f32 (models/classification/model.ts): steps of 1e-3 keep
    // that rounding (~1e-7) far below the tolerance.
    checkGrad(
      "classifier_weighted_loss",
      f,
      pick.map((i) => leaves[i] as k.Array),
      { h: 1e-3, tol: 1e-3 },
    );
  } finally {
    k.setDefaultDevice("cpu:0");
  }
});

test("the compiled step's confusion matrix counts argmax predictions of the labelled rows", async () => {
  const rows = 64,
    classes = 4;
  const r = rng(5);
  const labels = Int32Array.from({ length: rows }, (_, i) => (i % 9 === 8 ? -100 : Math.floor(r() * classes)));
  const logits = Float32Array.from(randomLogits(rows, classes, 6));
  const counts = k.jit((x: k.Array, y: k.Array) => classificationLoss(x, y, rowWeights(y, undefined)).counts!)(
    k.array(logits, { shape: [rows, classes] }),
    k.array(labels, { shape: [rows] }),
  );
  const expected = Array.from({ length: classes }, () => new Array<number>(classes).fill(0));
  labels.forEach((y, row) => {
    if (y === -100) return;
    const x = [...logits.subarray(row * classes, (row + 1) * classes)];
    expected[y]![x.indexOf(Math.max(...x))]! += 1;
  });
  assert.deepEqual(confusionMatrix((await counts.data()) as Float32Array, classes), expected);
});

// A hand-checked case of every zero_division path: class 0 predicted well, class 1 never predicted
// (F1 0), class 2 predicted but never true (F1 0), class 3 neither (left out, as sklearn's label set).
const Y_TRUE = [0, 0, 0, 1, 1, 0];
const Y_PRED = [0, 0, 2, 0, 0, 0];

function matrixOf(yTrue: number[], yPred: number[], classes: number): number[][] {
  const m = Array.from({ length: classes }, () => new Array<number>(classes).fill(0));
  yTrue.forEach((t, i) => (m[t]![yPred[i]!]! += 1));
  return m;
}

test("macro F1 and accuracy: a hand-checked example of sklearn's definition", () => {
  const m = matrixOf(Y_TRUE, Y_PRED, 4);
  // Class 0: TP 3, FP 2, FN 1 → F1 6/9; class 1: TP 0 → 0; class 2: TP 0 → 0; class 3: absent.
  assert.deepEqual(perClassF1(m), [6 / 9, 0, 0, undefined]);
  assert.ok(Math.abs(macroF1Of(m) - 6 / 9 / 3) < 1e-12);
  assert.equal(accuracyOf(m), 3 / 6);
  assert.equal(macroF1Of(matrixOf([], [], 3)), 0);
});

test("macro F1, accuracy and the confusion matrix equal scikit-learn's", { skip: pythonSkip }, () => {
  const r = rng(9);
  const cases = [
    { yTrue: Y_TRUE, yPred: Y_PRED, classes: 4 },
    ...[2, 3, 5].map((classes) => {
      const yTrue = Array.from({ length: 40 }, () => Math.floor(r() * classes));
      return { yTrue, yPred: yTrue.map((y) => (r() < 0.6 ? y : Math.floor(r() * (classes - 1)))), classes };
    }),
  ];
  for (const { yTrue, yPred, classes } of cases) {
    const sk = runPython<{ accuracy: number; macro_f1: number; confusion: number[][] }>("sklearn_classification_metrics.py", [], {
      input: JSON.stringify({ y_true: yTrue, y_pred: yPred, classes }),
    });
    const m = matrixOf(yTrue, yPred, classes);
    assert.deepEqual(m, sk.confusion);
    assert.ok(Math.abs(accuracyOf(m) - sk.accuracy) < 1e-12);
    assert.ok(Math.abs(macroF1Of(m) - sk.macro_f1) < 1e-12, `${classes} classes: ${macroF1Of(m)} vs sklearn ${sk.macro_f1}`);
  }
});
