// What Kiln knows about one training task (masked LM, causal LM, …), as data: which models train for
// it, the objective it minimizes and the settings that objective takes, which evaluation metrics it
// reports and how its evaluation line reads. Each task is one file of train/tasks/ and index.ts lists
// them; the Trainer, `kiln train` and the objective factory read the spec instead of naming tasks.
import type { LanguageModel } from "../../models/language-model.js";
import type { TracedMaskOptions } from "../../data/mlm/mask-traced.js";
import type { TrainingObjective, TrainingTask } from "../objectives/objective.js";
import type { MaskedLMInit } from "../../models/masked-lm.js";
import type { ModelTask } from "../../models/spec.js";
import type { ScheduleShape } from "../../optim/schedules.js";

export interface ObjectiveSettings {
  /** The masking of a masked LM (its seed included); refused for a causal LM, which has none. */
  masking?: TracedMaskOptions;
  /** The MLM head on the labelled positions only (default) or on every position, as the peers compute it (masked LMs only). */
  labelledPositionsOnly?: boolean;
  /** The MLM head's room for labelled positions per micro-batch (masked LMs only). */
  labelCapacity?: number;
  /** One loss weight per class (sequence classification only). */
  classWeights?: readonly number[];
}

/**
 * The quickstart's recipe for a task: the tokenizer, model and training it runs on its corpus, what it
 * says about them in `--help`, and the evaluation curves its summary prints.
 */
export interface QuickstartRecipe {
  /** Tokenizer pieces. */
  readonly vocabSize: number;
  readonly preset: string;
  /** How the model's parameters start (createModel's init), where not as transformers does. */
  readonly modelInit?: MaskedLMInit;
  /** config.json fields the job sets over its preset's (whichever preset it trains). */
  readonly modelConfig?: Readonly<Record<string, number>>;
  /** A masked LM's masking rates, for training and for evaluation (the Trainer's masking settings), where not 15%. */
  readonly masking?: { readonly mlmProbability: number; readonly evalMlmProbability: number };
  /** Training steps of a run of fixed length (`--steps`, or a recipe without a budget): what the recipe was tuned at. */
  readonly steps: number;
  /**
   * The job's time budget for training in seconds (Trainer's maxTime), taken unless `--steps` or `--max-time`
   * is given: the job then fits its minutes on a slow or busy machine, and the steps it reaches depend on it.
   */
  readonly maxTime?: number;
  readonly batch: number;
  readonly learningRate: number;
  /** The rate's shape after the warmup (the Trainer's optimizer.schedule and decayFraction), where not linear decay. */
  readonly schedule?: { readonly schedule: ScheduleShape; readonly decayFraction?: number };
  /** Evaluations spread over the run (the last at the end), and whether one comes before the first step. */
  readonly evaluations: number;
  readonly evalAtStart: boolean;
  /** The model's directory under the quickstart's working directory. */
  readonly modelDir: string;
  /** The recipe in `kiln quickstart --help`, one string per line (the command indents them). */
  readonly help: readonly string[];
  /** The evaluation metrics the summary prints as curves, in order, with the digits each keeps. */
  readonly curves: readonly (readonly [metric: string, digits: number])[];
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
  /**
   * The task of the model families it trains (ModelSpec.task: their presets, the model a config or a
   * directory must be), where that is not its own name: a task that trains the same models another way.
   */
  readonly modelTask?: ModelTask;
  /** The task in `kiln train --help`, one string per line (the command indents them after `--task NAME`). */
  readonly trainHelp: readonly string[];
  /** What a step of this task computes, for `kiln bench train --help` ("next-token prediction"); a task the bench times has it. */
  readonly benchHelp?: string;
  /** The preset `kiln bench train` times for this task unless another is named; a task the bench times has it. */
  readonly benchPreset?: string;
  /**
   * Settings (by their option names) that only this task takes, each with what it does: a run of another
   * task refuses them (trainer-options-check.ts: checkTaskSettings).
   */
  readonly ownSettings?: Readonly<Record<string, string>>;
  /** The quickstart's recipe, for a task the quickstart runs. */
  readonly quickstart?: QuickstartRecipe;
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
