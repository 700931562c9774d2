// Whole programs on the ONNX Runtime executor against the reference interpreter: the MLP training
// step (forward, backward, AdamW, with donation) gives the same loss curve over 20 steps (1e-5
// relative), and an attention block's forward and backward pass (projections, masked softmax,
// dropout, layer norm) give the same loss and gradients (f32, 1e-5 normwise).
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../../src/index.js";
import { adamInit, mlpData, mlpInit, trainStep } from "../../helpers/mlp.js";
import { randn, rng } from "../../helpers/random.js";
import { mismatch } from "./compare.js";

const cpu = k.findDevice("cpu:0"),
  ref = k.findDevice("ref:0");

function lossCurve(device: k.Device, steps: number): number[] {
  const { x, y } = mlpData(128, 32, 10, 3, device);
  let params = mlpInit(32, 64, 10, 4, device);
  // A fresh step counter: adamInit's is the shared cached scalar 0, which must not be donated.
  let state: ReturnType<typeof adamInit> & { step: k.Array } = {
    ...adamInit(params),
    step: k.array(Float32Array.of(0), { shape: [], device }),
  };
  const step = k.jit(trainStep, { name: `mlp_step_${device.id}`, device, donateArgs: [0, 1] });
  const lr = k.array(Float32Array.of(0.01), { shape: [], device });
  const losses: number[] = [];
  for (let i = 0; i < steps; i++) {
    const out = step(params, state, x, y, lr);
    params = out.params;
    state = out.state;
    losses.push(out.loss.item());
  }
  return losses;
}

test("the MLP trains on ONNX Runtime with the reference interpreter's loss curve (20 steps, 1e-5 relative)", () => {
  const want = lossCurve(ref, 20),
    got = lossCurve(cpu, 20);
  assert.ok(want[19]! < 0.8 * want[0]!, `the loss should fall: ${want[0]} → ${want[19]}`);
  want.forEach((w, i) => assert.ok(Math.abs(got[i]! - w) <= 1e-5 * Math.abs(w), `step ${i}: ${got[i]} vs ${w}`));
});

interface AttnParams {
  wq: k.Array;
  wk: k.Array;
  wv: k.Array;
  wo: k.Array;
  gamma: k.Array;
  beta: k.Array;
}
const B = 2,
  S = 6,
  D = 16,
  H = 4,
  Dh = D / H;

function attentionLoss(p: AttnParams, x: k.Array, mask: k.Array, target: k.Array, key: k.Array): k.Array {
  const heads = (t: k.Array) => t.reshape([B, S, H, Dh]).transpose([0, 2, 1, 3]);
  const q = heads(x.matmul(p.wq)),
    kk = heads(x.matmul(p.wk)),
    v = heads(x.matmul(p.wv));
  const scores = k
    .einsum("bhqd,bhkd->bhqk", q, kk)
    .mul(1 / Math.sqrt(Dh))
    .add(mask);
  const attn = k.dropout(key, k.softmax(scores, -1), 0.1);
  const ctx = k.einsum("bhqk,bhkd->bhqd", attn, v).transpose([0, 2, 1, 3]).reshape([B, S, D]);
  const y = k.layerNorm(x.add(ctx.matmul(p.wo)), p.gamma, p.beta);
  return k.gelu(y).sub(target).square().mean();
}

function attentionGrads(device: k.Device) {
  const r = rng(11);
  const arr = (shape: number[], scale = 1) =>
    k.array(
      Float32Array.from(
        randn(
          r,
          shape.reduce((a, b) => a * b, 1),
        ),
        (v) => v * scale,
      ),
      { shape, device },
    );
  const p: AttnParams = {
    wq: arr([D, D], 0.3),
    wk: arr([D, D], 0.3),
    wv: arr([D, D], 0.3),
    wo: arr([D, D], 0.3),
    gamma: arr([D], 0.1).add(1),
    beta: arr([D], 0.1),
  };
  // Causal mask: -1e9 above the diagonal.
  const m = new Float32Array(S * S).map((_, i) => (i % S > Math.floor(i / S) ? -1e9 : 0));
  const mask = k.array(m, { shape: [S, S], device });
  const f = k.jit(k.valueAndGrad(attentionLoss), { name: `attention_${device.id}`, device });
  const [loss, grads] = f(p, arr([B, S, D]), mask, arr([B, S, D], 0.5), k.randomKey(7)) as [k.Array, AttnParams];
  return { loss: loss.dataSync(), grads: [grads.wq, grads.wk, grads.wv, grads.wo, grads.gamma, grads.beta].map((g) => g.dataSync()) };
}

test("an attention block's forward and backward pass match the reference interpreter", () => {
  const want = attentionGrads(ref),
    got = attentionGrads(cpu);
  const tol = { rtol: 1e-5, normwise: true };
  assert.equal(mismatch("f32", got.loss, want.loss, tol), undefined);
  want.grads.forEach((w, i) => {
    const bad = mismatch("f32", got.grads[i]!, w, tol);
    assert.ok(!bad, `gradient ${i}: ${bad}`);
  });
});
