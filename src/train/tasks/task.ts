// What Kiln knows about one training task (masked LM, causal LM, …), as data: which models train for
// it, the objective it minimizes and the settings that objective takes, which evaluation metrics it
// reports and how its evaluation line reads. Each task is one file of train/tasks/ and index.ts lists
// them; the Trainer, `kiln train` and the objective factory read the spec instead of naming tasks.
import type { LanguageModel } from "../../models/language-model.js";
import type { TracedMaskOptions } from "../../data/mlm/mask-traced.js";
import type { TrainingObjective, TrainingTask } from "../objectives/objective.js";

export interface ObjectiveSettings {
  /** The masking of a masked LM (its seed included); refused for a causal LM, which has none. */
  masking?: TracedMaskOptions;
  /** The MLM head's room for labelled positions per micro-batch (masked LMs only). */
  labelCapacity?: number;
  /** One loss weight per class (sequence classification only). */
  classWeights?: readonly number[];
}

/** An evaluation pass's sums: loss over the counted targets, right top-1 predictions, counted targets. */
export interface EvalSums {
  lossSum: number;
  correct: number;
  count: number;
  /** The task's evaluation counts (ObjectiveOutputs.counts) summed over the pass, flat; absent where it has none. */
  counts?: Float32Array;
}

export interface TaskSpec {
  /** The task's name (`kiln train --task`, checkpoints' run_settings.task). */
  readonly name: TrainingTask;
  /** What a model of this task is, in words: "a masked LM". */
  readonly kind: string;
  /** Whether the data must name a mask token and the masking settings (a masked LM's data requirement). */
  readonly usesMasking: boolean;
  /** Whether it trains on labelled examples (openClassificationDataset's batches) rather than token rows. */
  readonly labelledData?: boolean;
  /** Whether `model` is a model of this task. */
  accepts(model: LanguageModel): boolean;
  /** The objective `model` trains with, checked against the settings given for it. */
  objective(model: LanguageModel, settings: ObjectiveSettings): TrainingObjective;
  /** The metrics of an evaluation pass, in the order they are logged (eval_loss first). */
  evalMetrics(sums: EvalSums): Record<string, number>;
  /** The evaluation line's text after "step N: eval loss L, " for metrics evalMetrics gave. */
  evalLine(metrics: Record<string, number>): string;
  /** Lines for the end of a run from the last evaluation's sums (a classifier's confusion matrix); optional. */
  evalReport?(sums: EvalSums, model: LanguageModel): string[];
  /** The same as JSON-ready values, for programs (a classifier's labels and confusion matrix); optional. */
  evalDetails?(sums: EvalSums, model: LanguageModel): Record<string, unknown>;
}
