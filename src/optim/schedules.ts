// Learning-rate schedules as functions of the (traced) number of updates already applied, so the
// schedule runs inside the compiled step and a changing rate never recompiles.
import * as k from "../core/index.js";

/** A learning rate as a function of the step (both arrays, so it runs inside the compiled step). */
export type Schedule = (step: k.Array) => k.Array;

/** A learning rate of `lr` at every step. */
export function constantSchedule(lr: number): Schedule {
  return (step) => k.full(step.shape, lr, "f32");
}

/** Options of a warmup-decay schedule: the peak rate, the warmup steps, the total steps. */
export interface WarmupDecayOptions {
  peak: number;
  warmupSteps: number;
  totalSteps: number;
}

/**
 * Linear warmup from 0 to `peak`, then linear decay to 0 at `totalSteps` (the reference pipeline's
 * schedule; Hugging Face's get_linear_schedule_with_warmup).
 */
export function linearWarmupDecay({ peak, warmupSteps, totalSteps }: WarmupDecayOptions): Schedule {
  return (step) => {
    const s = step.astype("f32");
    const warm = warmupSteps > 0 ? s.div(warmupSteps) : k.full(s.shape, 1, "f32");
    const decay = k.maximum(k.sub(totalSteps, s).div(Math.max(1, totalSteps - warmupSteps)), 0);
    return k.where(s.less(warmupSteps), warm, decay).mul(peak);
  };
}

/** Linear warmup, then cosine decay from `peak` to `minLr` at `totalSteps`. */
export function cosineDecay({ peak, warmupSteps, totalSteps, minLr = 0 }: WarmupDecayOptions & { minLr?: number }): Schedule {
  return (step) => {
    const s = step.astype("f32");
    const warm = warmupSteps > 0 ? s.div(warmupSteps).mul(peak) : k.full(s.shape, peak, "f32");
    const progress = k.minimum(k.maximum(s.sub(warmupSteps).div(Math.max(1, totalSteps - warmupSteps)), 0), 1);
    const cos = k
      .cos(progress.mul(Math.PI))
      .add(1)
      .mul(0.5 * (peak - minLr))
      .add(minLr);
    return k.where(s.less(warmupSteps), warm, cos);
  };
}

/** The reference's default warmup: a twentieth of the total steps. */
export function defaultWarmup(totalSteps: number): number {
  return Math.floor(totalSteps / 20);
}

/** Options of a schedule over the fraction of the run done: the peak rate and the warmup's fraction. */
export interface FractionScheduleOptions {
  peak: number;
  /** The share of the run (0 to 1) that warms up from 0 to `peak`. */
  warmupFraction: number;
  /** After the warmup: "linear" (default) or "cosine" decay to 0 at the end of the run. */
  decay?: "linear" | "cosine";
}

/**
 * A learning rate as a function of the fraction of the run done (0 → 1) instead of the step: the clock
 * of a time-budgeted run, where the steps reached depend on the machine. Linear warmup over
 * `warmupFraction`, then linear (or cosine) decay to 0 at 1; past 1 the rate stays 0. The argument is
 * the fraction as an f32 array (a Schedule's argument, so it runs inside the compiled step).
 */
export function fractionSchedule({ peak, warmupFraction, decay = "linear" }: FractionScheduleOptions): Schedule {
  return (fraction) => {
    const f = k.minimum(k.maximum(fraction.astype("f32"), 0), 1);
    const warm = warmupFraction > 0 ? f.div(warmupFraction) : k.full(f.shape, 1, "f32");
    const rest = k.maximum(f.sub(warmupFraction).div(Math.max(1e-9, 1 - warmupFraction)), 0);
    const after = decay === "cosine" ? k.cos(rest.mul(Math.PI)).add(1).mul(0.5) : k.sub(1, rest);
    return k.where(f.less(warmupFraction), warm, after).mul(peak);
  };
}
