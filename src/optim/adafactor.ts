// Adafactor (Shazeer & Stern 2018) as transformers' `Adafactor` defines it: the second moment of a
// parameter with two or more dimensions is kept factored, as its row and column means (memory that grows
// with rows + columns, not their product); the update is clipped to an RMS of `clipThreshold`; β2 grows
// with the step (1 - t^decayRate); the first moment is optional (beta1). The step size is either an
// explicit learning rate (a number or a schedule) or transformers' relative step, optionally scaled by
// each parameter's RMS.
import * as k from "../core/index.js";
import { appliesWeightDecay } from "./adamw.js";
import {
  asSchedule,
  checkOption,
  checkOptimizerOptions,
  namedLeaves,
  type Optimizer,
  type OptimizerState,
  type OptimizerUpdate,
} from "./optimizer.js";
import type { Schedule } from "./schedules.js";

/** Options of Adafactor: learning rate (or the relative step), decay, clipping, weight decay, factoring. */
export interface AdafactorOptions {
  /**
   * An explicit rate (a number or a schedule). Without one, the step size is transformers' relative
   * step: min(1e-2, 1/√t), or min(1e-6·t, 1/√t) with `warmupInit`.
   */
  learningRate?: number | Schedule;
  /** Regularizers: of the squared gradient, and the least parameter RMS `scaleParameter` uses (default [1e-30, 1e-3]). */
  eps?: readonly [number, number];
  /** Updates are scaled down to this RMS at most (default 1). */
  clipThreshold?: number;
  /** β2 at step t is 1 - t^decayRate (default -0.8). */
  decayRate?: number;
  /** Decay of a first moment; none when left out (transformers' default). */
  beta1?: number;
  /** Decoupled weight decay, scaled by the step size (default 0). */
  weightDecay?: number;
  /** Which parameters (by checkpoint name) get weight decay; default: all but LayerNorm weights and biases. */
  decay?: (name: string) => boolean;
  /**
   * Scale the step size by each parameter's RMS (at least eps[1]). Default: true without a
   * learningRate (transformers' default), false with one (the explicit-rate setting transformers
   * recommends, e.g. for T5 fine-tuning: scale_parameter=False, relative_step=False, warmup_init=False).
   */
  scaleParameter?: boolean;
  /** Use the relative step instead of a learning rate. Default: true exactly when no learningRate is given. */
  relativeStep?: boolean;
  /** With the relative step: warm up from 1e-6·t (default false). */
  warmupInit?: boolean;
}

/**
 * transformers' state names, keyed by parameter name (a factored parameter has row and column means
 * where another has the full second moment), which are the tensor names in optimizer.safetensors.
 */
export interface AdafactorState extends OptimizerState {
  /** Updates applied so far (f32 scalar). */
  step: k.Array;
  /** Rows' mean squared gradient ([..., rows]) of each parameter with two or more dimensions. */
  exp_avg_sq_row: Record<string, k.Array>;
  /** Columns' mean squared gradient ([..., columns]) of each parameter with two or more dimensions. */
  exp_avg_sq_col: Record<string, k.Array>;
  /** The full second moment of each parameter with fewer than two dimensions. */
  exp_avg_sq: Record<string, k.Array>;
  /** First moments (with beta1 only). */
  exp_avg?: Record<string, k.Array>;
}

/** Root mean square of all elements (transformers' `_rms`: ‖x‖₂ / √n). */
function rms(x: k.Array): k.Array {
  const n = x.shape.reduce((a, b) => a * b, 1);
  return x.square().sum().sqrt().div(Math.sqrt(n));
}

/** Adafactor: factored second moments (memory sublinear in the parameters), with an optional relative step size. */
export class Adafactor implements Optimizer<AdafactorState> {
  readonly name = "adafactor";
  /** The explicit rate, or undefined under the relative step. */
  readonly lr: Schedule | undefined;
  readonly eps: readonly [number, number];
  readonly clipThreshold: number;
  readonly decayRate: number;
  readonly beta1: number | undefined;
  readonly weightDecay: number;
  readonly decay: (name: string) => boolean;
  readonly scaleParameter: boolean;
  readonly relativeStep: boolean;
  readonly warmupInit: boolean;

  constructor(opts: AdafactorOptions = {}) {
    checkOptimizerOptions(
      "Adafactor",
      opts,
      [
        "learningRate",
        "eps",
        "clipThreshold",
        "decayRate",
        "beta1",
        "weightDecay",
        "decay",
        "scaleParameter",
        "relativeStep",
        "warmupInit",
      ],
      {
        numbers: ["clipThreshold", "weightDecay"],
        booleans: ["scaleParameter", "relativeStep", "warmupInit"],
        learningRateRequired: false,
      },
    );
    const explicit = opts.learningRate !== undefined;
    this.relativeStep = opts.relativeStep ?? !explicit;
    this.scaleParameter = opts.scaleParameter ?? !explicit;
    this.warmupInit = opts.warmupInit ?? false;
    if (explicit && this.relativeStep)
      throw new Error("Adafactor: a learningRate and relativeStep: true exclude each other; drop one of them");
    if (!explicit && !this.relativeStep) throw new Error("Adafactor: relativeStep: false needs a learningRate");
    if (this.warmupInit && !this.relativeStep) throw new Error("Adafactor: warmupInit needs relativeStep: true (and no learningRate)");
    this.lr = explicit ? asSchedule(opts.learningRate!) : undefined;
    this.eps = opts.eps ?? [1e-30, 1e-3];
    this.clipThreshold = opts.clipThreshold ?? 1;
    this.decayRate = opts.decayRate ?? -0.8;
    this.beta1 = opts.beta1;
    this.weightDecay = opts.weightDecay ?? 0;
    this.decay = opts.decay ?? appliesWeightDecay;
    this.eps.forEach((e, i) => checkOption("Adafactor", `eps[${i}]`, e, (v) => v >= 0, "≥ 0"));
    checkOption("Adafactor", "clipThreshold", this.clipThreshold, (c) => c > 0, "> 0");
    checkOption("Adafactor", "decayRate", this.decayRate, (d) => d < 0, "< 0 (β2 = 1 - t^decayRate must grow towards 1)");
    if (this.beta1 !== undefined) checkOption("Adafactor", "beta1", this.beta1, (b) => b >= 0 && b <= 1, "in [0, 1]");
    checkOption("Adafactor", "weightDecay", this.weightDecay, (w) => w >= 0, "≥ 0");
  }

  init(params: unknown): AdafactorState {
    const state: AdafactorState = { step: k.scalar(0, "f32"), exp_avg_sq_row: {}, exp_avg_sq_col: {}, exp_avg_sq: {} };
    if (this.beta1 !== undefined) state.exp_avg = {};
    for (const { name, param: p } of namedLeaves(params)) {
      if (p.shape.length >= 2) {
        state.exp_avg_sq_row[name] = k.zeros(p.shape.slice(0, -1), "f32");
        state.exp_avg_sq_col[name] = k.zeros([...p.shape.slice(0, -2), p.shape.at(-1)!], "f32");
      } else state.exp_avg_sq[name] = k.zeros(p.shape, "f32");
      if (state.exp_avg) state.exp_avg[name] = k.zeros(p.shape, "f32");
    }
    return state;
  }

  /** The step size before any parameter scale: the schedule's rate, or the relative step at step t. */
  private relativeRate(state: AdafactorState, t: k.Array): k.Array {
    if (this.lr) return this.lr(state.step);
    const cap = this.warmupInit ? t.mul(1e-6) : k.full([], 1e-2, "f32");
    return k.minimum(cap, t.rsqrt());
  }

  update<P>(grads: P, state: AdafactorState, params: P): OptimizerUpdate<AdafactorState, P> {
    const t = state.step.add(1);
    const rate = this.relativeRate(state, t);
    const beta2t = k.sub(1, k.pow(t, this.decayRate));
    const keep = k.sub(1, beta2t);
    const gs = k.leaves<k.Array>(grads as k.PyTree);
    const next: AdafactorState = { step: t, exp_avg_sq_row: {}, exp_avg_sq_col: {}, exp_avg_sq: {} };
    if (state.exp_avg) next.exp_avg = {};
    const newP = namedLeaves(params).map(({ name, param }, i) => {
      const g = gs[i]!.astype("f32"),
        p = param.astype("f32");
      const lr = this.scaleParameter ? rate.mul(k.maximum(rms(p), this.eps[1])) : rate;
      const sq = g.square().add(this.eps[0]);
      let upd: k.Array;
      if (param.shape.length >= 2) {
        const row = state.exp_avg_sq_row[name]!.mul(beta2t).add(sq.mean(-1).mul(keep));
        const col = state.exp_avg_sq_col[name]!.mul(beta2t).add(sq.mean(-2).mul(keep));
        next.exp_avg_sq_row[name] = row;
        next.exp_avg_sq_col[name] = col;
        // transformers' _approx_sq_grad: rsqrt(row / mean(row)) ⊗ rsqrt(col).
        const r = row
          .div(row.mean(-1, { keepDims: true }))
          .rsqrt()
          .expandDims(-1);
        upd = r.mul(col.expandDims(-2).rsqrt()).mul(g);
      } else {
        const v = state.exp_avg_sq[name]!.mul(beta2t).add(sq.mul(keep));
        next.exp_avg_sq[name] = v;
        upd = v.rsqrt().mul(g);
      }
      upd = upd.div(k.maximum(rms(upd).div(this.clipThreshold), 1)).mul(lr);
      if (state.exp_avg) {
        const m = state.exp_avg[name]!.mul(this.beta1!).add(upd.mul(1 - this.beta1!));
        next.exp_avg![name] = m;
        upd = m;
      }
      const decayed = this.weightDecay > 0 && this.decay(name) ? p.add(p.mul(lr.mul(-this.weightDecay))) : p;
      return decayed.sub(upd).astype(param.dtype);
    });
    return { params: k.flatten(params).treedef.unflatten(newP), state: next, lr: rate };
  }
}
