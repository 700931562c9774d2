// RoBERTa's forward pass and MLM loss against golden values from an independent PyTorch
// implementation (scripts/golden/roberta_mlm.py), and its gradients against finite differences.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as k from "../../src/index.js";
import { createMaskedLM, maskedLmLoss, paramsFromTensors, validateConfig } from "../../src/models/index.js";
import { parameterLayout } from "../../src/models/pretrained.js";
import { readSafetensors } from "../../src/models/safetensors.js";
import { fixture } from "../helpers/fixtures.js";
import { checkGrad } from "../helpers/gradcheck.js";

k.setDefaultDevice("ref:0");

async function load() {
  const config = validateConfig(JSON.parse(readFileSync(fixture("roberta-tiny.json"), "utf8")), "roberta-tiny.json");
  const model = createMaskedLM(config);
  const { tensors } = await readSafetensors(fixture("roberta-tiny.safetensors"));
  const params = paramsFromTensors(model, tensors, "roberta-tiny.safetensors");
  const t = (name: string) => k.array(tensors[name]!.data, { shape: tensors[name]!.shape, dtype: tensors[name]!.dtype });
  return {
    model,
    params,
    ids: t("test.input_ids"),
    mask: t("test.attention_mask"),
    labels: t("test.labels"),
    logits: tensors["test.logits"]!,
    loss: tensors["test.loss"]!,
  };
}

test("parameter names and shapes are Hugging Face's", async () => {
  const { model } = await load();
  const { names, avals } = parameterLayout(model);
  assert.ok(names.includes("roberta.embeddings.word_embeddings.weight"));
  assert.ok(names.includes("roberta.encoder.layer.1.attention.self.query.weight"));
  assert.ok(names.includes("lm_head.dense.weight") && names.includes("lm_head.bias") && names.includes("lm_head.layer_norm.weight"));
  assert.deepEqual(
    avals[names.indexOf("roberta.encoder.layer.0.intermediate.dense.weight")]!.shape,
    [32, 16],
    "dense weights are [out, in]",
  );
  assert.equal(names.length, 5 + 16 * 2 + 5);
});

test("logits and loss match the independent PyTorch implementation within 1e-4", async () => {
  const { model, params, ids, mask, labels, logits, loss } = await load();
  const forward = k.jit((p: any, i: k.Array, m: k.Array, l: k.Array) => {
    const h = model.hidden(p, i, m);
    return { logits: model.lmHead(p, h), ...maskedLmLoss(model, p, h, l), capped: maskedLmLoss(model, p, h, l, 8) };
  });
  const out = forward(params, ids, mask, labels);
  const got = out.logits.dataSync() as Float32Array,
    want = logits.data as Float32Array;
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!) / Math.max(1, Math.abs(want[i]!)));
  assert.ok(worst < 1e-4, `max relative logit error ${worst}`);
  const l = (loss.data as Float32Array)[0]!;
  assert.ok(Math.abs(out.loss.item() - l) / l < 1e-4, `loss ${out.loss.item()} vs ${l}`);
  assert.equal(out.count.item(), 4);
  // Running the vocabulary head only on the labelled positions gives the same loss.
  assert.ok(Math.abs(out.capped.loss.item() - out.loss.item()) < 1e-5 * l);
  assert.equal(out.capped.correct.item(), out.correct.item());
});

test("RoBERTa's gradients match finite differences (f64, tiny config)", async () => {
  const { model, params, ids, mask, labels } = await load();
  const p64 = k.treeMap((a: k.Array) => a.astype("f64"), params);
  // Check a few parameter tensors end to end through the whole model (others are covered per primitive).
  const pick = ["lm_head.bias", "roberta.encoder.layer.1.attention.self.key.bias", "roberta.embeddings.LayerNorm.weight"];
  const names = k.leafPaths(p64);
  const leaves = k.leaves<k.Array>(p64);
  const { treedef } = k.flatten(p64);
  const idx = pick.map((n) => names.indexOf(n));
  const f = (...xs: k.Array[]) => {
    const ls = leaves.slice();
    idx.forEach((i, j) => {
      ls[i] = xs[j]!;
    });
    const p = treedef.unflatten(ls);
    return maskedLmLoss(model, p, model.hidden(p, ids, mask, { dtype: "f64" }), labels).loss;
  };
  checkGrad(
    "roberta",
    f,
    idx.map((i) => leaves[i]!),
    { tol: 1e-5 },
  );
});
