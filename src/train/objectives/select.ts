// Which objective a model trains with: the model decides (a causal LM predicts the next token, a masked
// LM its masked tokens), so a Trainer, `kiln train --task` and checkpoints never disagree with it. The
// task specs of train/tasks/ say which models are theirs and build the objective.
import type { LanguageModel } from "../../models/language-model.js";
import { OptionError } from "../../core/option-error.js";
import { TASK_SPECS, taskOfModel, type ObjectiveSettings } from "../tasks/index.js";
import type { TrainingObjective, TrainingTask } from "./objective.js";

export { isCausalLanguageModel, type ObjectiveSettings } from "../tasks/index.js";

export function trainingTask(model: LanguageModel): TrainingTask {
  return taskOfModel(model).name;
}

/**
 * The objective `model` trains with for `task` (default: the first task that takes the model), checked
 * against the settings given for it.
 */
export function objectiveFor(model: LanguageModel, s: ObjectiveSettings, task?: TrainingTask): TrainingObjective {
  if (task === undefined) return taskOfModel(model).objective(model, s);
  const spec = TASK_SPECS.find((t) => t.name === task);
  if (!spec)
    throw new OptionError({
      where: "Trainer.fit",
      option: "task",
      value: task,
      why: "is not a training task",
      fix: `Give one of ${TASK_SPECS.map((t) => `"${t.name}"`).join(", ")}`,
    });
  if (!spec.accepts(model))
    throw new OptionError({
      where: "Trainer.fit",
      option: "task",
      value: task,
      why: `trains ${spec.kind}, and the model is a ${model.config.model_type} model of task "${taskOfModel(model).name}"`,
      fix: `Give a model that task takes, or leave task out to train "${taskOfModel(model).name}"`,
    });
  return spec.objective(model, s);
}
