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

/**
 * Linear warmup to `peak`, the rate held at `peak`, then linear decay to 0 over the last `decaySteps`
 * (Hugging Face's get_wsd_schedule with a linear decay). Holding the peak keeps learning fast for longer;
 * the short decay at the end gives what a full-length decay would (Hägele et al., "Scaling Laws and
 * Compute-Optimal Training Beyond Fixed Training Durations").
 */
export function warmupStableDecay({ peak, warmupSteps, totalSteps, decaySteps }: WarmupDecayOptions & { decaySteps: number }): Schedule {
  const span = Math.max(1, Math.min(decaySteps, totalSteps - warmupSteps));
  return (step) => {
    const s = step.astype("f32");
    const warm = warmupSteps > 0 ? s.div(warmupSteps) : k.full(s.shape, 1, "f32");
    const decay = k.minimum(k.maximum(k.sub(totalSteps, s).div(span), 0), 1);
    return k.where(s.less(warmupSteps), warm, decay).mul(peak);
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
  /**
   * After the warmup: "linear" (default) or "cosine" decay to 0 at the end of the run, or
   * "warmup_stable_decay": the peak held, then linear decay to 0 over the last `decayFraction`.
   */
  decay?: ScheduleShape;
  /** "warmup_stable_decay" only: the share of the run (0 to 1] at its end that decays (default 0.2). */
  decayFraction?: number;
}

/** The shapes of the built-in schedules after their warmup. */
export type ScheduleShape = "linear" | "cosine" | "warmup_stable_decay";

/** Every ScheduleShape, by Hugging Face's lr_scheduler_type names (what the Trainer and `kiln train` accept). */
export const SCHEDULE_SHAPES: readonly ScheduleShape[] = ["linear", "cosine", "warmup_stable_decay"];

/** warmup_stable_decay's default decay: the last fifth of the run. */
export const DEFAULT_DECAY_FRACTION = 0.2;

/**
 * A learning rate as a function of the fraction of the run done (0 → 1) instead of the step: the clock
 * of a time-budgeted run, where the steps reached depend on the machine. Linear warmup over
 * `warmupFraction`, then linear (or cosine, or warmup_stable_decay's) decay to 0 at 1; past 1 the rate
 * stays 0. The argument is the fraction as an f32 array (a Schedule's argument, so it runs inside the
 * compiled step).
 */
export function fractionSchedule({
  peak,
  warmupFraction,
  decay = "linear",
  decayFraction = DEFAULT_DECAY_FRACTION,
}: FractionScheduleOptions): Schedule {
  return (fraction) => {
    const f = k.minimum(k.maximum(fraction.astype("f32"), 0), 1);
    const warm = warmupFraction > 0 ? f.div(warmupFraction) : k.full(f.shape, 1, "f32");
    const rest = k.maximum(f.sub(warmupFraction).div(Math.max(1e-9, 1 - warmupFraction)), 0);
    const span = Math.max(1e-9, Math.min(decayFraction, 1 - warmupFraction));
    const after =
      decay === "cosine"
        ? k.cos(rest.mul(Math.PI)).add(1).mul(0.5)
        : decay === "warmup_stable_decay"
          ? k.minimum(k.sub(1, f).div(span), 1)
          : k.sub(1, rest);
    return k.where(f.less(warmupFraction), warm, after).mul(peak);
  };
}
