// What `kiln train` prints about a run: the plan before the first step (model size, data, steps and
// where they run) and the one JSON line of a finished run, whose evaluation metrics are the task's
// (its spec's evalMetrics: eval_loss, eval_perplexity, eval_accuracy, …).
import type { FitResult } from "../train/trainer.js";
import type { TrainingTask } from "../train/objectives/objective.js";

export interface TrainingPlan {
  modelType: string;
  parameterCount: number;
  /** The training data in words: "40 training records of 32 tokens". */
  records: string;
  /** How long it trains, in words: "2000 steps", "up to 5m or 2000 steps". */
  steps: string;
  worldReplicas: number;
  batch: number;
  deviceIds: readonly string[];
  /** Processes of a multi-process run (undefined for one process). */
  processes: number | undefined;
  strategy: string;
  precision: string;
}

/** The line before training: "kiln train: llama 0.12M parameters, 40 training records of 32 tokens, …". */
export function trainingPlanLine(p: TrainingPlan): string {
  return (
    `kiln train: ${p.modelType} ${(p.parameterCount / 1e6).toFixed(2)}M parameters, ` +
    `${p.records}, ` +
    `${p.steps} of ${p.worldReplicas} × ${p.batch} on ${p.deviceIds.join(", ")}` +
    (p.processes !== undefined ? ` in each of ${p.processes} processes ` : " ") +
    `(${p.strategy}, precision ${p.precision})`
  );
}

/** The summary of a finished run as one JSON line: where it went, its steps and last losses, the task's metrics, speed. */
export function trainSummaryJson(outputDir: string, task: TrainingTask, result: FitResult): string {
  const last = result.evalHistory.at(-1);
  return JSON.stringify({
    output_dir: outputDir,
    steps: result.globalStep,
    train_loss: result.history.at(-1)?.loss,
    task,
    // The task's evaluation metrics as its spec logs them (eval_loss, eval_perplexity, eval_accuracy), but the count.
    ...Object.fromEntries(Object.entries(last ?? {}).filter(([key]) => key.startsWith("eval_") && key !== "eval_tokens")),
    // The task's details of the last evaluation (a classifier's labels and confusion matrix).
    ...result.evalDetails,
    tokens_per_s: Math.round(result.tokensPerSecond),
    compile_s: Number(result.compileSeconds.toFixed(2)),
  });
}
