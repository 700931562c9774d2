// What a fit() trains with, worked out from the Trainer's options and fit's arguments before anything
// compiles: the schedule and optimizer, the training and evaluation objectives, and the run settings a
// checkpoint records (and a resumed run compares against). Settings that cannot train are refused here.
import { OptionError } from "../core/option-error.js";
import { createOptimizer, type OptimizerName } from "../optim/by-name.js";
import type { Optimizer } from "../optim/optimizer.js";
import { cosineDecay, defaultWarmup, linearWarmupDecay, type Schedule } from "../optim/schedules.js";
import type { TracedMaskOptions } from "../data/mlm/mask-traced.js";
import { objectiveFor } from "./objectives/select.js";
import type { TrainingObjective } from "./objectives/objective.js";
import type { FitArgs, OptimizerSettings, RunSettings, TrainerOptions } from "./trainer-options.js";

export interface RunPlan {
  optimizer: Optimizer<any>;
  objective: TrainingObjective;
  evalObjective: TrainingObjective;
  settings: RunSettings;
}

type PlanOptions = Required<Pick<TrainerOptions, "seed" | "gradientAccumulation" | "precision" | "optimizer">> &
  Pick<TrainerOptions, "clipNorm">;

export function planRun(o: PlanOptions, a: FitArgs, totalSteps: number, warn: (message: string) => void): RunPlan {
  checkOptimizerSettings(a.optimizer, o.clipNorm);
  const warmup = a.optimizer.warmupSteps ?? defaultWarmup(totalSteps);
  if (warmup > totalSteps)
    warn(
      `warning: warmup of ${warmup} steps is longer than the run (${totalSteps} steps): ` +
        `the learning rate never reaches its peak of ${a.optimizer.learningRate}`,
    );
  const sched =
    (a.optimizer.schedule ?? "linear") === "linear"
      ? linearWarmupDecay({ peak: a.optimizer.learningRate, warmupSteps: warmup, totalSteps })
      : cosineDecay({ peak: a.optimizer.learningRate, warmupSteps: warmup, totalSteps });
  const optimizer = runOptimizer(o.optimizer, a.optimizer, sched);
  const masking: TracedMaskOptions | undefined = a.masking ? { ...a.masking, seed: o.seed } : undefined;
  const capacity = {
    ...(a.labelCapacity !== undefined ? { labelCapacity: a.labelCapacity } : {}),
    ...(a.classWeights !== undefined ? { classWeights: a.classWeights } : {}),
  };
  // Training and evaluation differ only in the masking's seed (evaluation masks the same way every time).
  const objective = objectiveFor(a.model, { ...(masking ? { masking } : {}), ...capacity });
  const evalObjective = objectiveFor(a.model, { ...(masking ? { masking: { ...masking, seed: o.seed + 2 } } : {}), ...capacity });
  const settings: RunSettings = {
    task: objective.task,
    optimizer: optimizer.name,
    learning_rate: a.optimizer.learningRate,
    weight_decay: a.optimizer.weightDecay ?? 0,
    warmup_steps: warmup,
    schedule: a.optimizer.schedule ?? "linear",
    max_steps: totalSteps,
    global_batch: a.train.batchSize,
    gradient_accumulation: o.gradientAccumulation,
    clip_norm: o.clipNorm ?? 0,
    precision: o.precision,
    ...(a.masking ? { mlm_probability: a.masking.mlmProbability ?? 0.15 } : {}),
    ...(a.classWeights ? { class_weights: a.classWeights.join(",") } : {}),
  };
  return { optimizer, objective, evalObjective, settings };
}

/**
 * TrainerOptions.optimizer as an Optimizer: a built-in one by name, with the run's schedule and
 * FitArgs.optimizer's settings; or the object as given, which takes none of those settings.
 */
function runOptimizer(choice: OptimizerName | Optimizer<any>, s: OptimizerSettings, schedule: Schedule): Optimizer<any> {
  if (typeof choice === "string") {
    const { learningRate: _peak, warmupSteps: _warmup, schedule: _shape, ...rest } = s;
    return createOptimizer(choice, { ...rest, weightDecay: s.weightDecay ?? 0, learningRate: schedule });
  }
  const given = (["weightDecay", "warmupSteps", "schedule", "beta1", "beta2", "eps"] as const).filter((key) => s[key] !== undefined);
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
  // A negative norm would flip every gradient (min(-1/‖g‖, 1) < 0): gradient ascent.
  if (clipNorm !== undefined && !(clipNorm > 0 && Number.isFinite(clipNorm)))
    throw bad("clipNorm", clipNorm, "must be a finite number > 0 (a negative norm would turn training into gradient ascent)", "Trainer");
}
