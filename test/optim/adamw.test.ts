// AdamW and the schedules against straightforward float64 implementations of their definitions.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";
import { AdamW, appliesWeightDecay, linearWarmupDecay, cosineDecay, warmupStableDecay, clipByGlobalNorm } from "../../src/optim/index.js";

k.setDefaultDevice("ref:0");

test("AdamW matches PyTorch's algorithm step by step, decaying only what it should", () => {
  const opt = new AdamW({ learningRate: 0.01, weightDecay: 0.1 });
  let params: any = { dense: { weight: k.array([0.5, -1.0]), bias: k.array([0.2]) } };
  let state = opt.init(params);
  const ref = { w: [0.5, -1.0], b: [0.2], mw: [0, 0], vw: [0, 0], mb: [0], vb: [0] };
  const step = k.jit((p: any, s: any, g: any) => opt.update(g, s, p));
  for (let t = 1; t <= 5; t++) {
    const gw = [0.3 * t, -0.2],
      gb = [0.1 / t];
    const out = step(params, state, { dense: { weight: k.array(gw), bias: k.array(gb) } });
    params = out.params;
    state = out.state;
    const upd = (p: number[], m: number[], v: number[], g: number[], decay: boolean) =>
      p.forEach((_, i) => {
        m[i] = 0.9 * m[i]! + 0.1 * g[i]!;
        v[i] = 0.999 * v[i]! + 0.001 * g[i]! ** 2;
        if (decay) p[i]! -= 0.01 * 0.1 * p[i]!;
        p[i]! -= (0.01 * (m[i]! / (1 - 0.9 ** t))) / (Math.sqrt(v[i]! / (1 - 0.999 ** t)) + 1e-8);
      });
    upd(ref.w, ref.mw, ref.vw, gw, true);
    upd(ref.b, ref.mb, ref.vb, gb, false);
  }
  const w = params.dense.weight.toArray() as number[],
    b = params.dense.bias.toArray() as number[];
  w.forEach((x, i) => assert.ok(Math.abs(x - ref.w[i]!) < 1e-6, `weight ${x} vs ${ref.w[i]}`));
  assert.ok(Math.abs(b[0]! - ref.b[0]!) < 1e-6, `bias ${b[0]} vs ${ref.b[0]}`);
  assert.equal(state.step.item(), 5);
});

test("weight decay skips LayerNorm parameters and biases", () => {
  assert.equal(appliesWeightDecay("roberta.encoder.layer.0.attention.self.query.weight"), true);
  assert.equal(appliesWeightDecay("roberta.encoder.layer.0.attention.self.query.bias"), false);
  assert.equal(appliesWeightDecay("roberta.embeddings.LayerNorm.weight"), false);
  assert.equal(appliesWeightDecay("lm_head.layer_norm.weight"), false);
  assert.equal(appliesWeightDecay("lm_head.bias"), false);
  assert.equal(appliesWeightDecay("roberta.embeddings.word_embeddings.weight"), true);
});

test("linear warmup then linear decay to zero; cosine decay; warmup, stable, decay", () => {
  const lin = linearWarmupDecay({ peak: 1e-3, warmupSteps: 10, totalSteps: 110 });
  const at = (s: (x: k.Array) => k.Array, step: number) => s(k.scalar(step)).item();
  assert.equal(at(lin, 0), 0);
  assert.ok(Math.abs(at(lin, 5) - 5e-4) < 1e-9);
  assert.ok(Math.abs(at(lin, 10) - 1e-3) < 1e-9);
  assert.ok(Math.abs(at(lin, 60) - 5e-4) < 1e-9);
  assert.equal(at(lin, 110), 0);
  assert.equal(at(lin, 200), 0);
  const cos = cosineDecay({ peak: 1, warmupSteps: 0, totalSteps: 100, minLr: 0.1 });
  assert.ok(Math.abs(at(cos, 0) - 1) < 1e-6);
  assert.ok(Math.abs(at(cos, 50) - 0.55) < 1e-6);
  assert.ok(Math.abs(at(cos, 100) - 0.1) < 1e-6);
  // Warmup, the peak held, then linear decay over the last 20 steps.
  const wsd = warmupStableDecay({ peak: 1e-3, warmupSteps: 10, totalSteps: 110, decaySteps: 20 });
  for (const [step, rate] of [
    [5, 5e-4],
    [10, 1e-3],
    [90, 1e-3],
    [100, 5e-4],
    [110, 0],
    [200, 0],
  ] as const)
    assert.ok(Math.abs(at(wsd, step) - rate) < 1e-9, `step ${step}: ${at(wsd, step)} against ${rate}`);
});

test("global-norm clipping scales all gradients by one factor", () => {
  const { grads, norm } = clipByGlobalNorm({ a: k.array([3, 0]), b: k.array([4]) }, 1);
  assert.ok(Math.abs(norm.item() - 5) < 1e-6);
  const a = grads.a.toArray() as number[],
    b = grads.b.toArray() as number[];
  assert.ok(Math.abs(a[0]! - 0.6) < 1e-5 && Math.abs(b[0]! - 0.8) < 1e-5);
  const small = clipByGlobalNorm({ a: k.array([0.3]) }, 1);
  assert.ok(Math.abs((small.grads.a.toArray() as number[])[0]! - 0.3) < 1e-6);
});
