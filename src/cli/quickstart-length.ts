// How long a quickstart job trains: a recipe's time budget unless a step count was asked for, so that the
// job fits its minutes on a slow or busy machine, while `--steps` gives a run that repeats step for step.
import type { QuickstartRecipe } from "../train/tasks/task.js";

/** The Trainer's length option for a quickstart job: `maxTime` (seconds) or `maxSteps`. */
export type QuickstartLength = { maxTime: number } | { maxSteps: number };

export function quickstartLength(
  recipe: Pick<QuickstartRecipe, "steps" | "maxTime">,
  asked: { steps?: number; maxTime?: number },
): QuickstartLength {
  if (asked.maxTime !== undefined) return { maxTime: asked.maxTime };
  if (asked.steps !== undefined) return { maxSteps: asked.steps };
  return recipe.maxTime !== undefined ? { maxTime: recipe.maxTime } : { maxSteps: recipe.steps };
}
