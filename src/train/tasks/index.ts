// The training tasks, one TaskSpec each; adding a task is its file here and one line in TASK_SPECS.
import type { LanguageModel } from "../../models/language-model.js";
import type { TrainingTask } from "../objectives/objective.js";
import { causalLmTask } from "./causal-lm.js";
import { maskedLmTask } from "./masked-lm.js";
import { sequenceClassificationTask } from "./sequence-classification.js";
import type { TaskSpec } from "./task.js";

export type { TaskSpec, ObjectiveSettings, EvalSums } from "./task.js";
export { isCausalLanguageModel } from "./causal-lm.js";
export { isSequenceClassifier } from "./sequence-classification.js";

/** Every task; the first is `kiln train`'s default. */
export const TASK_SPECS: readonly TaskSpec[] = [maskedLmTask, causalLmTask, sequenceClassificationTask];

/** The spec of a task by name. */
export function taskSpec(name: TrainingTask): TaskSpec {
  const spec = TASK_SPECS.find((t) => t.name === name);
  if (!spec) throw new Error(`unknown task "${name}"; tasks: ${TASK_SPECS.map((t) => t.name).join(", ")}`);
  return spec;
}

/** The task `model` trains for (a causal LM predicts the next token, a masked LM its masked tokens). */
export function taskOfModel(model: LanguageModel): TaskSpec {
  const spec = TASK_SPECS.find((t) => t.accepts(model));
  if (!spec) throw new Error(`no training task accepts a ${model.config.model_type} model`);
  return spec;
}
