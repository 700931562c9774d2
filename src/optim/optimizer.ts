// The optimizer interface, as optax has it: `init(params) → state` and `update(grads, state, params)`,
// both pure functions of parameter trees that run inside the compiled training step. The state is a
// typed tree of arrays that checkpoints save and load by its tree paths (optimizer.safetensors), so a
// new optimizer needs nothing from the train step or the checkpoints but these two functions.
import * as k from "../core/index.js";
import { keepIfSkipped } from "./precision.js";
import { constantSchedule, type Schedule } from "./schedules.js";
import { checkOptions } from "../core/check-options.js";
import { OptionError } from "../core/option-error.js";

/** What every optimizer's state holds: the count of updates applied (f32 scalar), the schedules' clock. */
export interface OptimizerState {
  step: k.Array;
}

/** One update: the new parameters (in their own dtype), the new state, and the learning rate used (for logs). */
export interface OptimizerUpdate<S extends OptimizerState = OptimizerState, P = any> {
  /** The updated parameters: the same tree type as the parameters given. */
  params: P;
  state: S;
  lr: k.Array;
}

/** An update rule: its state's initial value and one step of parameters and state from gradients. */
export interface Optimizer<S extends OptimizerState = OptimizerState> {
  /** Its name in checkpoints (optimizer.safetensors' metadata) and run settings: "adamw", "adafactor", "lion", … */
  readonly name: string;
  /** The state before the first update, for parameters of this tree's shapes. */
  init(params: unknown): S;
  /** One update; grads and params are trees of the same structure, and the new params have their type. */
  update<P>(grads: P, state: S, params: P): OptimizerUpdate<S, P>;
}

/**
 * The optimizer's update of `params` and `opt` by `grads`, as the compiled training step applies it:
 * where `keep` is false (a loss-scaled step that overflowed, or a non-finite step that is skipped), the
 * parameters and optimizer state stay exactly as they were.
 */
export function applyOptimizer<S extends OptimizerState, P>(
  optimizer: Optimizer<S>,
  grads: P,
  params: P,
  opt: S,
  keep?: k.Array,
): { params: P; opt: S; lr: k.Array } {
  const upd = optimizer.update(grads, opt, params);
  if (!keep) return { params: upd.params, opt: upd.state, lr: upd.lr };
  return { params: keepIfSkipped(keep, upd.params, params), opt: keepIfSkipped(keep, upd.state, opt), lr: upd.lr };
}

/** A rate given as a number is a constant schedule. */
export function asSchedule(learningRate: number | Schedule): Schedule {
  return typeof learningRate === "number" ? constantSchedule(learningRate) : learningRate;
}

/** Each leaf of a parameter tree with its checkpoint name (its tree path, dot-joined). */
export function namedLeaves(params: unknown): { name: string; param: k.Array }[] {
  const names = k.leafPaths(params);
  return k.leaves<k.Array>(params as k.PyTree).map((param, i) => ({ name: names[i]!, param }));
}

/** Throws when an option is not a finite number in range, naming the optimizer and the option. */
export function checkOption(optimizer: string, option: string, value: number, ok: (v: number) => boolean, rule: string): void {
  if (!(Number.isFinite(value) && ok(value))) throw new Error(`${optimizer}: ${option} must be ${rule}, got ${value}`);
}

/**
 * Checks an optimizer's constructor options: only its own names (`learning_rate` gets `learningRate`
 * suggested), numbers where numbers belong, and a learning rate that is a number ≥ 0 or a schedule.
 */
export function checkOptimizerOptions(
  where: string,
  opts: unknown,
  known: readonly string[],
  rules: { numbers?: readonly string[]; booleans?: readonly string[]; learningRateRequired: boolean },
): void {
  checkOptions(where, opts, known, { numbers: rules.numbers ?? [], nonNegative: rules.numbers ?? [], booleans: rules.booleans ?? [] });
  const lr = (opts as { learningRate?: unknown } | undefined)?.learningRate;
  if (lr === undefined && !rules.learningRateRequired) return;
  if (typeof lr === "function" || (typeof lr === "number" && Number.isFinite(lr) && lr >= 0)) return;
  throw new OptionError({
    where,
    option: "learningRate",
    value: lr,
    why: lr === undefined ? "is required" : "must be a number ≥ 0 or a schedule",
    fix:
      typeof lr === "string" && Number.isFinite(Number(lr))
        ? `Pass the number, not a string: learningRate: ${Number(lr)}`
        : "Pass e.g. learningRate: 1e-3, or a schedule such as linearWarmupDecay({ … })",
  });
}
