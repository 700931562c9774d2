// The causal-LM objective: the next-token loss against a hand computation (shift, padding, a left-padded
// row), padding never a target, and the gradients of llama-tiny's loss through the objective against
// finite differences.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import { presetConfig, createCausalLM, type Params } from "../../src/models/index.js";
import { causalLmObjective, nextTokenLoss, nextTokenTargets } from "../../src/train/objectives/causal-lm.js";
import { checkGrad } from "../helpers/gradcheck.js";
import { rng } from "../helpers/random.js";

k.setDefaultDevice("ref:0");

const IDS = [
  [1, 4, 2, 5, 3],
  [1, 3, 3, 0, 0],
  [0, 0, 1, 5, 2],
];
// Row 1 is right-padded (its last two tokens are padding), row 2 left-padded.
const MASK = [
  [1, 1, 1, 1, 1],
  [1, 1, 1, 0, 0],
  [0, 0, 1, 1, 1],
];
const VOCAB = 6;

const ints = (rows: number[][]) => k.array(Int32Array.from(rows.flat()), { shape: [rows.length, rows[0]!.length] });

function randomLogits(seed: number): number[][][] {
  const r = rng(seed);
  return IDS.map((row) => row.map(() => Array.from({ length: VOCAB }, () => 4 * r() - 2)));
}

/** Σ −log softmax(logits[r][i])[ids[r][i+1]] over the pairs of real tokens, the hits and the count, in plain numbers. */
function byHand(logits: number[][][]): { lossSum: number; correct: number; count: number } {
  let lossSum = 0,
    correct = 0,
    count = 0;
  IDS.forEach((row, r) => {
    for (let i = 0; i + 1 < row.length; i++) {
      if (!MASK[r]![i] || !MASK[r]![i + 1]) continue;
      const z = logits[r]![i]!;
      const target = row[i + 1]!;
      const lse = Math.log(z.reduce((s, v) => s + Math.exp(v), 0));
      lossSum += lse - z[target]!;
      correct += z.indexOf(Math.max(...z)) === target ? 1 : 0;
      count++;
    }
  });
  return { lossSum, correct, count };
}

/** The objective's outputs with the logits standing in for hidden states (an identity head). */
function objectiveOn(logits: number[][][]) {
  const t = nextTokenTargets(ints(IDS), ints(MASK));
  const hidden = k.array(Float32Array.from(logits.flat(2)), { shape: [IDS.length, IDS[0]!.length, VOCAB] });
  const out = nextTokenLoss(hidden, t.labels, (rows) => rows);
  return { lossSum: out.lossSum.item(), correct: out.correct.item(), count: out.count.item(), targets: t.count.item() };
}

test("the next-token loss is the shifted cross-entropy computed by hand, over pairs of real tokens only", () => {
  const t = nextTokenTargets(ints(IDS), ints(MASK));
  assert.deepEqual(
    Array.from(t.labels.dataSync() as Int32Array),
    [4, 2, 5, 3, 3, 3, -100, -100, -100, -100, 5, 2],
    "position i is labelled with token i+1; padding, and the left-padded row's first real token, are not targets",
  );
  for (const seed of [1, 2, 3]) {
    const logits = randomLogits(seed);
    const want = byHand(logits);
    const got = objectiveOn(logits);
    assert.equal(got.count, 8);
    assert.equal(got.targets, 8, "the count known before the forward pass is the one the loss uses");
    assert.ok(Math.abs(got.lossSum - want.lossSum) < 1e-5 * want.lossSum, `loss ${got.lossSum} vs ${want.lossSum} by hand`);
    assert.equal(got.correct, want.correct);
  }
  // A logit row that puts its maximum on the next token is a hit.
  const sure = randomLogits(4);
  sure[0]![0]![4] = 50;
  assert.equal(objectiveOn(sure).correct, byHand(sure).correct);
  assert.ok(byHand(sure).correct >= 1);
});

test("padding is never a target: what padded positions hold and predict changes nothing", () => {
  const logits = randomLogits(7);
  const before = objectiveOn(logits);
  const changed = randomLogits(7);
  // Row 1 predicts padding from positions 2 and 3 and holds padding at 3 and 4; row 2's positions 0 and 1 are padding.
  for (const [r, i] of [
    [1, 2],
    [1, 3],
    [1, 4],
    [2, 0],
    [2, 1],
    [0, 4],
  ] as const)
    changed[r]![i] = changed[r]![i]!.map((v) => v + 9 * Math.sin(v + i));
  assert.deepEqual(objectiveOn(changed), before);
  const ids = IDS.map((row) => [...row]);
  ids[1]![3] = 5;
  ids[1]![4] = 4;
  const t = nextTokenTargets(ints(ids), ints(MASK));
  assert.deepEqual(t.labels.dataSync(), nextTokenTargets(ints(IDS), ints(MASK)).labels.dataSync());
  const empty = nextTokenTargets(ints([[1, 2, 3]]), ints([[1, 0, 0]]));
  assert.equal(empty.count.item(), 0, "a row of one real token has nothing to predict");
});

test("rows of fewer than 2 tokens are refused with the fix", () => {
  assert.throws(() => nextTokenTargets(ints([[1], [2]]), ints([[1], [1]])), /at least 2 tokens.*maxLength of 2 or more/);
});

test("llama-tiny: gradients of the objective's mean next-token loss match finite differences (f64)", () => {
  const config = presetConfig("llama-tiny", { vocabSize: 11, padId: 0, clsId: 1, sepId: 2 }, 8);
  // Large weights, so that every layer changes the loss visibly.
  const model = createCausalLM({ ...config, initializer_range: 0.4 });
  const objective = causalLmObjective({ model });
  const params = k.treeMap((a: k.Array) => a.astype("f64"), model.init(k.randomKey(3)));
  const names = k.leafPaths(params);
  const leaves = k.leaves<k.Array>(params);
  const { treedef } = k.flatten(params);
  const pick = ["model.layers.1.self_attn.v_proj.weight", "model.layers.0.input_layernorm.weight", "model.norm.weight"].map((n) =>
    names.indexOf(n),
  );
  assert.ok(
    pick.every((i) => i >= 0),
    names.join(", "),
  );
  const batch = {
    inputIds: ints([
      [1, 5, 7, 3, 9, 2],
      [1, 4, 4, 8, 0, 0],
    ]),
    attentionMask: ints([
      [1, 1, 1, 1, 1, 1],
      [1, 1, 1, 1, 0, 0],
    ]),
    exampleOffset: k.array(new Int32Array([0]), { shape: [] }),
    epoch: k.array(new Int32Array([0]), { shape: [] }),
  };
  const f = (...xs: k.Array[]) => {
    const ls = leaves.slice();
    pick.forEach((i, j) => {
      ls[i] = xs[j]!;
    });
    const t = objective.targets(batch);
    const out = objective.outputs(treedef.unflatten(ls) as Params, t, { dtype: "f64" });
    return out.lossSum.div(t.count);
  };
  checkGrad(
    "llama_tiny_next_token",
    f,
    pick.map((i) => leaves[i]!),
    { tol: 1e-5 },
  );
});
