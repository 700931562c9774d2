// What a fit() trains with, worked out from the Trainer's options and fit's arguments before anything
// compiles: the schedule and optimizer, the training and evaluation objectives, and the run settings a
// checkpoint records (and a resumed run compares against). Settings that cannot train are refused here.
import { OptionError } from "../core/option-error.js";
import { createOptimizer, type OptimizerName } from "../optim/by-name.js";
import type { Optimizer } from "../optim/optimizer.js";
import * as k from "../core/index.js";
import {
  cosineDecay,
  DEFAULT_DECAY_FRACTION,
  defaultWarmup,
  fractionSchedule,
  linearWarmupDecay,
  warmupStableDecay,
  type Schedule,
} from "../optim/schedules.js";
import type { TracedMaskOptions } from "../data/mlm/mask-traced.js";
import { DEFAULT_MLM_PROBABILITY } from "../data/mlm/mask.js";
import { objectiveFor } from "./objectives/select.js";
import type { TrainingObjective } from "./objectives/objective.js";
import type { FitArgs, OptimizerSettings, RunSettings, TrainerOptions } from "./trainer-options.js";

export interface RunPlan {
  optimizer: Optimizer<any>;
  /**
   * Under a time budget, the built-in optimizer at a fraction of the budget spent (a traced f32 scalar the
   * compiled step is fed): its schedule follows that fraction instead of the step. Absent otherwise, and
   * for an optimizer object, which keeps its own schedule (the budget then only ends the run).
   */
  optimizerAt?: (fraction: k.Array) => Optimizer<any>;
  objective: TrainingObjective;
  evalObjective: TrainingObjective;
  settings: RunSettings;
}

type PlanOptions = Required<Pick<TrainerOptions, "seed" | "gradientAccumulation" | "precision" | "optimizer">> &
  Pick<TrainerOptions, "clipNorm"> & { budgetSeconds?: number };

/** The warmup of a time-budgeted run when none is given: a twentieth of the budget, as defaultWarmup of the steps. */
export const DEFAULT_WARMUP_FRACTION = 0.05;

export function planRun(o: PlanOptions, a: FitArgs, totalSteps: number, warn: (message: string) => void): RunPlan {
  checkOptimizerSettings(a.optimizer, o.clipNorm);
  const budgeted = o.budgetSeconds !== undefined;
  if (budgeted && a.optimizer.warmupSteps !== undefined)
    throw new OptionError({
      where: "Trainer.fit",
      option: "optimizer.warmupSteps",
      value: a.optimizer.warmupSteps,
      why:
        "counts steps, but under TrainerOptions.maxTime the schedule follows the fraction of the time budget spent " +
        "(the steps a budget reaches depend on the machine)",
      fix: `Give optimizer.warmupFraction instead (default ${DEFAULT_WARMUP_FRACTION}: a twentieth of the budget)`,
    });
  const fraction = a.optimizer.warmupFraction;
  const warmup = budgeted
    ? 0
    : (a.optimizer.warmupSteps ?? (fraction !== undefined ? Math.round(fraction * totalSteps) : defaultWarmup(totalSteps)));
  if (warmup > totalSteps)
    warn(
      `warning: warmup of ${warmup} steps is longer than the run (${totalSteps} steps): ` +
        `the learning rate never reaches its peak of ${a.optimizer.learningRate}`,
    );
  const shape = a.optimizer.schedule ?? "linear";
  const warmupFraction = fraction ?? DEFAULT_WARMUP_FRACTION;
  const decayFraction = shape === "warmup_stable_decay" ? (a.optimizer.decayFraction ?? DEFAULT_DECAY_FRACTION) : undefined;
  const peak = a.optimizer.learningRate;
  const byTime = fractionSchedule({ peak, warmupFraction, decay: shape, ...(decayFraction !== undefined ? { decayFraction } : {}) });
  // Under a budget the updates use optimizerAt's; this optimizer only makes the state and names the run.
  const sched = budgeted
    ? byTime
    : shape === "linear"
      ? linearWarmupDecay({ peak, warmupSteps: warmup, totalSteps })
      : shape === "cosine"
        ? cosineDecay({ peak, warmupSteps: warmup, totalSteps })
        : warmupStableDecay({ peak, warmupSteps: warmup, totalSteps, decaySteps: Math.round(decayFraction! * totalSteps) });
  const optimizer = runOptimizer(o.optimizer, a.optimizer, sched);
  // The fraction is fed to the compiled step; the schedule ignores the update count it is called with.
  const optimizerAt =
    budgeted && typeof o.optimizer === "string"
      ? (spent: k.Array) => runOptimizer(o.optimizer, a.optimizer, () => byTime(spent))
      : undefined;
  // Evaluation masks with its own seed (the same way every time), and at its own rate where one is given.
  let masking: TracedMaskOptions | undefined, evalMasking: TracedMaskOptions | undefined;
  if (a.masking) {
    const { evalMlmProbability, ...trainMasking } = a.masking;
    masking = { ...trainMasking, seed: o.seed };
    evalMasking = { ...masking, seed: o.seed + 2, ...(evalMlmProbability !== undefined ? { mlmProbability: evalMlmProbability } : {}) };
  }
  const capacity = {
    ...(a.labelCapacity !== undefined ? { labelCapacity: a.labelCapacity } : {}),
    ...(a.classWeights !== undefined ? { classWeights: a.classWeights } : {}),
  };
  const objective = objectiveFor(a.model, { ...(masking ? { masking } : {}), ...capacity }, a.task);
  const evalObjective = objectiveFor(a.model, { ...(evalMasking ? { masking: evalMasking } : {}), ...capacity }, a.task);
  const settings: RunSettings = {
    task: objective.task,
    optimizer: optimizer.name,
    learning_rate: a.optimizer.learningRate,
    weight_decay: a.optimizer.weightDecay ?? 0,
    warmup_steps: warmup,
    schedule: shape,
    ...(decayFraction !== undefined ? { decay_fraction: decayFraction } : {}),
    max_steps: Number.isFinite(totalSteps) ? totalSteps : 0,
    ...(budgeted ? { max_time: o.budgetSeconds!, warmup_fraction: warmupFraction } : {}),
    ...(!budgeted && fraction !== undefined ? { warmup_fraction: fraction } : {}),
    global_batch: a.train.batchSize,
    gradient_accumulation: o.gradientAccumulation,
    clip_norm: o.clipNorm ?? 0,
    precision: o.precision,
    ...(masking ? { mlm_probability: masking.mlmProbability ?? DEFAULT_MLM_PROBABILITY } : {}),
    ...(a.masking?.evalMlmProbability !== undefined ? { eval_mlm_probability: a.masking.evalMlmProbability } : {}),
    ...(a.classWeights ? { class_weights: a.classWeights.join(",") } : {}),
  };
  return { optimizer, ...(optimizerAt ? { optimizerAt } : {}), objective, evalObjective, settings };
}

/**
 * TrainerOptions.optimizer as an Optimizer: a built-in one by name, with the run's schedule and
 * FitArgs.optimizer's settings; or the object as given, which takes none of those settings.
 */
function runOptimizer(choice: OptimizerName | Optimizer<any>, s: OptimizerSettings, schedule: Schedule): Optimizer<any> {
  if (typeof choice === "string") {
    const { learningRate: _peak, warmupSteps: _warmup, warmupFraction: _share, schedule: _shape, decayFraction: _decay, ...rest } = s;
    return createOptimizer(choice, { ...rest, weightDecay: s.weightDecay ?? 0, learningRate: schedule });
  }
  const given = (["weightDecay", "warmupSteps", "warmupFraction", "schedule", "decayFraction", "beta1", "beta2", "eps"] as const).filter(
    (key) => s[key] !== undefined,
  );
  if (given.length)
    throw new OptionError({
      where: "Trainer.fit",
      option: "optimizer",
      value: Object.fromEntries(given.map((key) => [key, s[key]])),
      why:
        `sets FitArgs.optimizer's ${given.join(", ")}, which configure the built-in optimizers, but TrainerOptions.optimizer is ` +
        `an optimizer object (${choice.name}) with settings of its own`,
      fix: "Give them to it and leave them out of FitArgs.optimizer",
    });
  return choice;
}

/** Refuses optimizer settings that would train backwards or not at all (a negative rate or clip norm). */
function checkOptimizerSettings(s: OptimizerSettings, clipNorm: number | undefined): void {
  const bad = (option: string, value: number, why: string, where = "Trainer.fit") => new OptionError({ where, option, value, why });
  if (!(s.learningRate >= 0) || !Number.isFinite(s.learningRate))
    throw bad("optimizer.learningRate", s.learningRate, "must be a finite number ≥ 0");
  if (s.weightDecay !== undefined && !(s.weightDecay >= 0 && Number.isFinite(s.weightDecay)))
    throw bad("optimizer.weightDecay", s.weightDecay, "must be a finite number ≥ 0");
  if (s.warmupSteps !== undefined && !(Number.isInteger(s.warmupSteps) && s.warmupSteps >= 0))
    throw bad("optimizer.warmupSteps", s.warmupSteps, "must be a whole number of steps ≥ 0");
  if (s.warmupFraction !== undefined && !(s.warmupFraction >= 0 && s.warmupFraction < 1))
    throw bad("optimizer.warmupFraction", s.warmupFraction, "must be a fraction of the run in [0, 1)");
  if (s.warmupFraction !== undefined && s.warmupSteps !== undefined)
    throw bad("optimizer.warmupFraction", s.warmupFraction, `and optimizer.warmupSteps (${s.warmupSteps}) both set the warmup: give one`);
  // A negative norm would flip every gradient (min(-1/‖g‖, 1) < 0): gradient ascent.
  if (clipNorm !== undefined && !(clipNorm > 0 && Number.isFinite(clipNorm)))
    throw bad("clipNorm", clipNorm, "must be a finite number > 0 (a negative norm would turn training into gradient ascent)", "Trainer");
}
