// The evaluation loop: the compiled eval step over the whole eval set, its sums gathered across
// replicas (in the program) and processes, turned into the task's metrics, logged and handed to the
// callbacks.
import type { BatchSource, TrainBatch } from "./batch-source.js";
import type { Strategy } from "../distribute/strategy.js";
import type { ProcessGroup } from "../distribute/multi-process.js";
import type { Callback, Metrics, TrainerView } from "./callbacks.js";
import { processRows } from "./process-rows.js";
import { stepInputs } from "./step-inputs.js";
import { taskSpec } from "./tasks/index.js";
import type { TrainingTask } from "./objectives/objective.js";
import type { TrainState } from "./train-step.js";
import type { LanguageModel } from "../models/language-model.js";

/** The compiled evaluation step of a batch length (a strategy's compiled program for it). */
export type EvalFn = (params: unknown, inputs: unknown, length: number) => any;

/** The Trainer as its evaluation sees it. */
export interface EvaluationHost extends TrainerView {
  readonly strategy: Strategy;
  readonly group: ProcessGroup | undefined;
}

export interface Evaluation {
  evalFn: EvalFn;
  data: BatchSource<TrainBatch>;
  task: TrainingTask;
  callbacks: Callback[];
  /** Every evaluation's metrics with its step, appended to. */
  history: Metrics[];
  /** The model evaluated (the task's end-of-run report reads its labels). */
  model: LanguageModel;
  /** The last evaluation's end-of-run report (the task's evalReport), set by each evaluation. */
  report?: string[];
  /** The last evaluation's details (the task's evalDetails). */
  details?: Record<string, unknown>;
}

/**
 * Loss and accuracy over the whole eval set: masked-token (same masks every time: a fixed seed), or
 * next-token with the perplexity (exp of the loss). `state` is the carried state (PerReplica leaves
 * where every replica keeps its own).
 */
export async function runEvaluation(t: EvaluationHost, e: Evaluation, state: TrainState): Promise<Metrics> {
  let lossSum = 0,
    correct = 0,
    count = 0;
  let counts: Float32Array | undefined;
  const group = t.group;
  for await (const batch of e.data.map((b, info) => (group ? processRows(b, info, group) : { batch: b, info }))) {
    const out = t.strategy.keepFirst(
      e.evalFn(
        state.params,
        stepInputs(t.strategy, batch.batch, { epoch: 0, exampleOffset: batch.info.exampleOffset }),
        batch.batch.shape[1],
      ),
    );
    const scalars = (await out.scalars.data()) as Float32Array;
    // Each process's replicas summed in the program; the processes' sums summed here (with XLA's
    // collectives the program's sum already spans every process).
    if (group?.collectives === "mpi") await group.comm.allReduceSum(scalars);
    const [l, c, n] = scalars;
    lossSum += l!;
    correct += c!;
    count += n!;
    // The task's counts (a confusion matrix) follow the three sums.
    if (scalars.length > 3) {
      counts ??= new Float32Array(scalars.length - 3);
      for (let i = 3; i < scalars.length; i++) counts[i - 3]! += scalars[i]!;
    }
  }
  const spec = taskSpec(e.task);
  const sums = { lossSum, correct, count, ...(counts ? { counts } : {}) };
  const m: Metrics = spec.evalMetrics(sums);
  e.report = spec.evalReport?.(sums, e.model);
  e.details = spec.evalDetails?.(sums, e.model);
  e.history.push({ step: t.globalStep, ...m });
  t.logMetrics(m);
  t.log(`step ${t.globalStep}: eval loss ${m.eval_loss!.toFixed(4)}, ${spec.evalLine(m)}`);
  for (const cb of e.callbacks) await cb.onEvalEnd?.(t, m);
  return m;
}
