// Which objective a model trains with: the model decides (a causal LM predicts the next token, a masked
// LM its masked tokens), so a Trainer, `kiln train --task` and checkpoints never disagree with it. The
// task specs of train/tasks/ say which models are theirs and build the objective.
import type { LanguageModel } from "../../models/language-model.js";
import { taskOfModel, type ObjectiveSettings } from "../tasks/index.js";
import type { TrainingObjective, TrainingTask } from "./objective.js";

export { isCausalLanguageModel, type ObjectiveSettings } from "../tasks/index.js";

export function trainingTask(model: LanguageModel): TrainingTask {
  return taskOfModel(model).name;
}

/** The objective `model` trains with, checked against the settings given for it. */
export function objectiveFor(model: LanguageModel, s: ObjectiveSettings): TrainingObjective {
  return taskOfModel(model).objective(model, s);
}
