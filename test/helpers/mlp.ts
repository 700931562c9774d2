// A two-layer MLP on a synthetic classification problem (labels from a fixed random "teacher"), trained
// with jit(valueAndGrad(loss)) and a hand-written AdamW step. Shared by the engine and executor tests.
import * as k from "../../src/index.js";
import { randn, rng } from "./random.js";

export interface MlpParams {
  w1: k.Array;
  b1: k.Array;
  w2: k.Array;
  b2: k.Array;
}
export interface AdamState {
  m: MlpParams;
  v: MlpParams;
  step: k.Array;
}

export function mlpData(n: number, dIn: number, classes: number, seed = 0, device?: k.Device) {
  const r = rng(seed);
  const x = randn(r, n * dIn);
  const teacher = randn(r, dIn * classes);
  const labels = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let best = 0,
      bestV = -Infinity;
    for (let c = 0; c < classes; c++) {
      let s = 0;
      for (let j = 0; j < dIn; j++) s += x[i * dIn + j]! * teacher[j * classes + c]!;
      if (s > bestV) {
        bestV = s;
        best = c;
      }
    }
    labels[i] = best;
  }
  return {
    x: k.array(Float32Array.from(x), { shape: [n, dIn], device }),
    y: k.array(labels, { shape: [n], device }),
  };
}

export function mlpInit(dIn: number, hidden: number, classes: number, seed = 1, device?: k.Device): MlpParams {
  const r = rng(seed);
  const arr = (n: number, shape: number[], scale: number) =>
    k.array(
      Float32Array.from(randn(r, n), (v) => v * scale),
      { shape, device },
    );
  return {
    w1: arr(dIn * hidden, [dIn, hidden], 1 / Math.sqrt(dIn)),
    b1: k.array(new Float32Array(hidden), { shape: [hidden], device }),
    w2: arr(hidden * classes, [hidden, classes], 1 / Math.sqrt(hidden)),
    b2: k.array(new Float32Array(classes), { shape: [classes], device }),
  };
}

export function mlpLoss(p: MlpParams, x: k.Array, y: k.Array): k.Array {
  const h = k.gelu(x.matmul(p.w1).add(p.b1));
  return k.crossEntropy(h.matmul(p.w2).add(p.b2), y);
}

export function adamInit(p: MlpParams): AdamState {
  const z = () => k.treeMap((a: k.Array) => k.zerosLike(a), p);
  return { m: z(), v: z(), step: k.scalar(0, "f32") };
}

/** One AdamW step (β1 0.9, β2 0.999, ε 1e-8, decoupled weight decay), all inside the compiled program. */
export function trainStep(p: MlpParams, s: AdamState, x: k.Array, y: k.Array, lr: k.Array) {
  const [loss, g] = k.valueAndGrad(mlpLoss)(p, x, y) as [k.Array, MlpParams];
  return adamStep(p, s, g, loss, lr);
}

/** The AdamW update of trainStep for gradients `g` (a data-parallel step passes them all-reduced). */
export function adamStep(p: MlpParams, s: AdamState, g: MlpParams, loss: k.Array, lr: k.Array) {
  const step = s.step.add(1);
  const c1 = k.sub(1, k.pow(k.scalar(0.9), step)),
    c2 = k.sub(1, k.pow(k.scalar(0.999), step));
  const m = k.treeMap((mi: k.Array, gi: k.Array) => mi.mul(0.9).add(gi.mul(0.1)), s.m, g);
  const v = k.treeMap((vi: k.Array, gi: k.Array) => vi.mul(0.999).add(gi.mul(gi).mul(0.001)), s.v, g);
  const params = k.treeMap(
    (pi: k.Array, mi: k.Array, vi: k.Array) => pi.sub(lr.mul(mi.div(c1).div(vi.div(c2).sqrt().add(1e-8)).add(pi.mul(0.01)))),
    p,
    m,
    v,
  );
  return { params, state: { m, v, step }, loss };
}
