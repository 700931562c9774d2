// The built-in optimizers by name, made from the settings a training run gives all of them (a learning
// rate schedule, weight decay, betas): what the Trainer's `optimizer: "adamw" | "adafactor" | "lion"` and
// `kiln train --optimizer` pick from.
import { Adafactor } from "./adafactor.js";
import { AdamW } from "./adamw.js";
import { Lion } from "./lion.js";
import type { Optimizer } from "./optimizer.js";
import type { Schedule } from "./schedules.js";

/** The optimizers optimizerByName knows. */
export const OPTIMIZER_NAMES = ["adamw", "adafactor", "lion"] as const;
/** One of OPTIMIZER_NAMES. */
export type OptimizerName = (typeof OPTIMIZER_NAMES)[number];

/** Settings of optimizerByName: learning rate, weight decay, betas, epsilon. */
export interface OptimizerByNameSettings {
  learningRate: number | Schedule;
  weightDecay?: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
}

/**
 * The optimizer `name` with these settings. Adafactor takes the rate as given, unscaled (transformers'
 * Trainer: scale_parameter=False, relative_step=False) and beta1 as its optional first moment; it has no
 * beta2 or eps of this kind (its second moment decays as 1 - t^-0.8), so those are refused, as is eps for
 * Lion, rather than silently dropped.
 */
export function createOptimizer(name: string, s: OptimizerByNameSettings): Optimizer<any> {
  const refuse = (setting: "beta2" | "eps", why: string) => {
    if (s[setting] !== undefined) throw new Error(`the ${name} optimizer has no ${setting} setting (${why}); leave ${setting} out`);
  };
  const decay = s.weightDecay !== undefined ? { weightDecay: s.weightDecay } : {};
  switch (name) {
    case "adamw":
      return new AdamW({
        learningRate: s.learningRate,
        ...decay,
        ...(s.beta1 !== undefined ? { beta1: s.beta1 } : {}),
        ...(s.beta2 !== undefined ? { beta2: s.beta2 } : {}),
        ...(s.eps !== undefined ? { eps: s.eps } : {}),
      });
    case "adafactor":
      refuse("beta2", "its second moment decays as 1 - t^-0.8; an Adafactor object takes decayRate");
      refuse("eps", "an Adafactor object takes its pair of regularizers as eps");
      return new Adafactor({ learningRate: s.learningRate, ...decay, ...(s.beta1 !== undefined ? { beta1: s.beta1 } : {}) });
    case "lion":
      refuse("eps", "its update is a sign, with nothing to divide by");
      return new Lion({
        learningRate: s.learningRate,
        ...decay,
        ...(s.beta1 !== undefined ? { beta1: s.beta1 } : {}),
        ...(s.beta2 !== undefined ? { beta2: s.beta2 } : {}),
      });
    default:
      throw new Error(`unknown optimizer "${name}"; choose one of ${OPTIMIZER_NAMES.join(", ")}, or pass an optimizer object`);
  }
}
