// Lion (Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms") as optax's `lion` defines it:
// the update is the sign of an interpolation between the gradient and the momentum, so every parameter
// moves by exactly the learning rate; the momentum then tracks the gradient at a slower rate (b2), and
// weight decay is decoupled (added to the sign before scaling by the rate). One moment per parameter:
// half of AdamW's state.
import * as k from "../core/index.js";
import { appliesWeightDecay } from "./adamw.js";
import { asSchedule, checkOption, checkOptimizerOptions, type Optimizer, type OptimizerState, type OptimizerUpdate } from "./optimizer.js";
import type { Schedule } from "./schedules.js";

/** Options of Lion: learning rate (or schedule), betas, weight decay. */
export interface LionOptions {
  /** Typically 3–10× smaller than AdamW's (every coordinate moves by the full rate). */
  learningRate: number | Schedule;
  /** Interpolation between the gradient and the momentum in the update's sign (optax's b1, default 0.9). */
  beta1?: number;
  /** Decay of the momentum (optax's b2, default 0.99). */
  beta2?: number;
  /** Decoupled weight decay (optax's default 1e-3). */
  weightDecay?: number;
  /** Which parameters (by checkpoint name) get weight decay; default: all but LayerNorm weights and biases. */
  decay?: (name: string) => boolean;
}

/** Lion's state: the step count and the momentum. */
export interface LionState extends OptimizerState {
  /** Updates applied so far (f32 scalar). */
  step: k.Array;
  /** The momentum (optax's mu), a tree like the parameters. */
  exp_avg: any;
}

/** sign(x), keeping ±0 and NaN as they are (as jnp.sign). */
function sign(x: k.Array): k.Array {
  return k.where(x.greater(0), 1, k.where(x.less(0), -1, x));
}

/** Lion: sign-of-momentum updates, one moment per parameter. */
export class Lion implements Optimizer<LionState> {
  readonly name = "lion";
  readonly lr: Schedule;
  readonly beta1: number;
  readonly beta2: number;
  readonly weightDecay: number;
  readonly decay: (name: string) => boolean;

  constructor(opts: LionOptions) {
    checkOptimizerOptions("Lion", opts, ["learningRate", "beta1", "beta2", "weightDecay", "decay"], {
      numbers: ["beta1", "beta2", "weightDecay"],
      learningRateRequired: true,
    });
    this.lr = asSchedule(opts.learningRate);
    this.beta1 = opts.beta1 ?? 0.9;
    this.beta2 = opts.beta2 ?? 0.99;
    this.weightDecay = opts.weightDecay ?? 1e-3;
    this.decay = opts.decay ?? appliesWeightDecay;
    checkOption("Lion", "beta1", this.beta1, (b) => b >= 0 && b <= 1, "in [0, 1]");
    checkOption("Lion", "beta2", this.beta2, (b) => b >= 0 && b <= 1, "in [0, 1]");
    checkOption("Lion", "weightDecay", this.weightDecay, (w) => w >= 0, "≥ 0");
  }

  init(params: unknown): LionState {
    return { step: k.scalar(0, "f32"), exp_avg: k.treeMap((p: k.Array) => k.zeros(p.shape, "f32"), params) };
  }

  update<P>(grads: P, state: LionState, params: P): OptimizerUpdate<LionState, P> {
    const { beta1: b1, beta2: b2, weightDecay } = this;
    const lr = this.lr(state.step);
    const names = k.leafPaths(params);
    const gs = k.leaves<k.Array>(grads as k.PyTree),
      ms = k.leaves<k.Array>(state.exp_avg);
    const newM: k.Array[] = [];
    const newP = k.leaves<k.Array>(params as k.PyTree).map((p, i) => {
      const g = gs[i]!.astype("f32"),
        m = ms[i]!;
      let upd = sign(g.mul(1 - b1).add(m.mul(b1)));
      newM.push(g.mul(1 - b2).add(m.mul(b2)));
      const p32 = p.astype("f32");
      if (weightDecay > 0 && this.decay(names[i]!)) upd = upd.add(p32.mul(weightDecay));
      return p32.sub(upd.mul(lr)).astype(p.dtype);
    });
    return {
      params: k.flatten(params).treedef.unflatten(newP),
      state: { step: state.step.add(1), exp_avg: k.flatten(state.exp_avg).treedef.unflatten(newM) },
      lr,
    };
  }
}
