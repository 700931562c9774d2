// AdamW with decoupled weight decay (Loshchilov & Hutter), as one pure update over parameter trees that
// runs inside the compiled training step. Weight decay skips LayerNorm weights and biases.
import * as k from "../core/index.js";
import { asSchedule, checkOptimizerOptions, type Optimizer, type OptimizerState, type OptimizerUpdate } from "./optimizer.js";
import type { Schedule } from "./schedules.js";

/** Options of AdamW: learning rate (or schedule), betas, epsilon, weight decay. */
export interface AdamWOptions {
  learningRate: number | Schedule;
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
  /** Which parameters (by checkpoint name) get weight decay; default: all but LayerNorm weights and biases. */
  decay?: (name: string) => boolean;
}

/** PyTorch's names, which are also the tensor names in optimizer.safetensors (`exp_avg.<parameter>`, …). */
export interface AdamWState extends OptimizerState {
  /** Updates applied so far (f32 scalar: exact up to 2^24 steps). */
  step: k.Array;
  /** First moments, a tree like the parameters. */
  exp_avg: any;
  /** Second moments, a tree like the parameters. */
  exp_avg_sq: any;
}

/** Whether weight decay applies to a parameter, by checkpoint name: to all but LayerNorm parameters and biases (the reference's rule). */
export function appliesWeightDecay(name: string): boolean {
  return !/(^|\.)(LayerNorm|layer_norm)\./.test(name) && !/(^|\.)bias$/.test(name);
}

/** AdamW: Adam with decoupled weight decay. */
export class AdamW implements Optimizer<AdamWState> {
  readonly name = "adamw";
  readonly lr: Schedule;
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  readonly decay: (name: string) => boolean;

  constructor(opts: AdamWOptions) {
    checkOptimizerOptions("AdamW", opts, ["learningRate", "beta1", "beta2", "eps", "weightDecay", "decay"], {
      numbers: ["beta1", "beta2", "eps", "weightDecay"],
      learningRateRequired: true,
    });
    this.lr = asSchedule(opts.learningRate);
    this.beta1 = opts.beta1 ?? 0.9;
    this.beta2 = opts.beta2 ?? 0.999;
    this.eps = opts.eps ?? 1e-8;
    this.weightDecay = opts.weightDecay ?? 0;
    this.decay = opts.decay ?? appliesWeightDecay;
  }

  init(params: unknown): AdamWState {
    const zeros = () => k.treeMap((p: k.Array) => k.zeros(p.shape, "f32"), params);
    return { step: k.scalar(0, "f32"), exp_avg: zeros(), exp_avg_sq: zeros() };
  }

  /** One update; grads and params are trees of the same structure. Returns the rate used too. */
  update<P>(grads: P, state: AdamWState, params: P): OptimizerUpdate<AdamWState, P> {
    const { beta1: b1, beta2: b2, eps, weightDecay } = this;
    const lr = this.lr(state.step);
    const t = state.step.add(1);
    // The rate and the bias corrections folded into scalars, in the form of Kingma & Ba's Algorithm 1
    // (section 2, last paragraph): p·(1 − lr·λ) − s·m / (√v + ε̂) with s = lr·√c2/c1 and ε̂ = ε·√c2, which
    // is torch's (lr/c1)·m / (√v/√c2 + ε) multiplied through by √c2. Over each parameter that is 13
    // passes (12 without decay) where m̂ / (√v̂ + ε) + λ·p, times lr, took 16: the optimizer is a
    // pass-bound share of a CPU step (a MiniLM's 30522 × 384 embedding alone is 47 MB a pass).
    const c1 = k.sub(1, k.pow(k.full([], b1), t));
    const rootC2 = k.sqrt(k.sub(1, k.pow(k.full([], b2), t)));
    const stepSize = k.div(k.mul(lr, rootC2), c1),
      epsHat = k.mul(eps, rootC2),
      shrink = k.sub(1, k.mul(lr, weightDecay));
    const names = k.leafPaths(params);
    const ps = k.leaves<k.Array>(params as k.PyTree),
      gs = k.leaves<k.Array>(grads as k.PyTree);
    const ms = k.leaves<k.Array>(state.exp_avg),
      vs = k.leaves<k.Array>(state.exp_avg_sq);
    const newP: k.Array[] = [],
      newM: k.Array[] = [],
      newV: k.Array[] = [];
    ps.forEach((p, i) => {
      const g = gs[i]!.astype("f32");
      const m = ms[i]!.mul(b1).add(g.mul(1 - b1));
      const v = vs[i]!.mul(b2).add(g.mul(1 - b2).mul(g));
      const upd = m.mul(stepSize).div(v.sqrt().add(epsHat));
      const kept = weightDecay > 0 && this.decay(names[i]!) ? p.astype("f32").mul(shrink) : p.astype("f32");
      newP.push(kept.sub(upd).astype(p.dtype));
      newM.push(m);
      newV.push(v);
    });
    const { treedef } = k.flatten(params);
    return {
      params: treedef.unflatten(newP),
      state: {
        step: t,
        exp_avg: k.flatten(state.exp_avg).treedef.unflatten(newM),
        exp_avg_sq: k.flatten(state.exp_avg_sq).treedef.unflatten(newV),
      },
      lr,
    };
  }
}
