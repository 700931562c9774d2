// The fit loop (Lightning's fit loop): groups of up to K batches, one compiled call per group, the
// per-step bookkeeping (divergence watch, history, logged windows, progress), and between calls the
// callbacks, evaluations and checkpoints that fall due. It ends at the last step, at a callback's stop
// (shouldStop: the run ends as finished) or at a requested stop (requestStop: the run ends unfinished,
// to be resumed). In a multi-process run every rank stops after the same step: they agree after each call.
import type * as k from "../core/index.js";
import type { DatasetState } from "../data/pipeline/dataset.js";
import type { BatchIterator } from "./batch-source.js";
import { agreeToStop, type ProcessGroup } from "../distribute/multi-process.js";
import type { PerReplica } from "../distribute/per-replica.js";
import type { Strategy } from "../distribute/strategy.js";
import type { Callback, Metrics, TrainerView } from "./callbacks.js";
import type { RunRecord } from "./checkpoint-connector.js";
import type { DivergenceWatch } from "./divergence.js";
import type { ProgressBar } from "./progress.js";
import type { Positioned } from "./step-inputs.js";
import { formatSeconds, type TrainingClock } from "./time-budget.js";
import { stepScalars, type TrainState } from "./train-step.js";

/** The Trainer as its fit loop sees it: the loop advances its step, epoch and last metrics. */
export interface FitLoopHost extends TrainerView {
  globalStep: number;
  epoch: number;
  lastMetrics: Metrics;
  readonly strategy: Strategy;
  readonly group: ProcessGroup | undefined;
  warn(message: string): void;
}

/**
 * One compiled call: K steps from `carried` over a group's inputs, starting at step `firstStep`; under a
 * time budget, with the fraction of it spent at each of the K steps.
 */
export type RunSteps = (
  carried: TrainState,
  group: readonly Positioned[],
  firstStep: number,
  budgetFractions?: readonly number[],
) => Promise<{ state: TrainState; scalars: k.Array | PerReplica }>;

export interface FitLoop {
  options: {
    stepsPerExecution: number;
    logEvery: number;
    evalEvery: number;
    /** Evaluations spread evenly over the run (TrainerOptions.evaluations), the last at its end. */
    evaluations?: number;
    checkpointEvery: number;
    callbacks: Callback[];
  };
  run: RunRecord;
  /** The carried state (every replica's copy) to start from. */
  carried: TrainState;
  batches: BatchIterator<Positioned>;
  /** Told the data position just past the last batch trained on (what a checkpoint saves). */
  trained(position: DatasetState): void;
  runSteps: RunSteps;
  /** Programs compiled so far (a call that compiled is timed apart from training). */
  compiles(): number;
  /** Evaluates the carried state (absent without eval data). */
  evaluate: ((carried: TrainState) => Promise<Metrics>) | undefined;
  watch: DivergenceWatch;
  bar: ProgressBar | undefined;
  /** The run's training time, and its budget (TrainerOptions.maxTime) when it has one. */
  clock: TrainingClock;
  /** Batches of one evaluation (0 without eval data): the final evaluation's cost before any was timed. */
  evalBatches: number;
}

/**
 * What an evaluation batch is taken to cost, in training steps, before any evaluation was timed: a
 * forward pass without the backward pass and the update, about a third of a step (the quickstart's masked
 * LM measured a quarter on a busy 2-core machine).
 */
const EVAL_BATCH_STEPS = 1 / 3;

export interface FitLoopResult {
  carried: TrainState;
  /** The run was asked to stop (on any rank of a multi-process run). */
  interrupted: boolean;
  compileSeconds: number;
  tokensPerSecond: number;
  /** The time budget ended the run. */
  budgetReached: boolean;
}

export async function runFitLoop(t: FitLoopHost, l: FitLoop): Promise<FitLoopResult> {
  const o = l.options;
  const K = o.stepsPerExecution;
  const group = t.group;
  let carried = l.carried;
  let compileSeconds = 0,
    timedTokens = 0,
    timedSeconds = 0;
  let window = { loss: 0, correct: 0, count: 0, n: 0 };
  let warnedDropped = false;
  // Alone, a request or a callback's stop ends the loop at once; in a multi-process run only what the
  // ranks agreed on does (a request that arrives while they agree counts at the next step's agreement).
  let interrupted = !group && t.stopRequested !== undefined;
  let stop = !group && (t.shouldStop || interrupted);
  // A group of up to K batches for one compiled call; it never spans an epoch boundary, so the
  // end-of-epoch work sees the state of exactly that epoch's end, nor a change of batch length
  // (length-bucketed data), so that its batches stack into one input.
  let pending: { batch: Positioned; position: DatasetState } | undefined;
  // Under a time budget: the mean seconds per step of the calls that did not compile (one call's time
  // swings on a busy machine), which predicts where the next call's steps fall in the budget and whether
  // the next call would end past it.
  const budget = l.clock.budget;
  let secondsPerStep = 0,
    budgetTimed = { seconds: 0, steps: 0 };
  let budgetReached = budget !== undefined && l.clock.elapsed() >= budget;
  stop ||= budgetReached;
  // The fraction of the steps done once `i` more are (0 without a step count).
  const stepShare = (i: number) => (Number.isFinite(t.totalSteps) ? (t.globalStep + i) / t.totalSteps : 0);
  // How far along the run is (what `evaluations` spreads over): its time budget's fraction spent or its
  // steps' fraction done, whichever is further, as the schedule follows.
  const progress = () => Math.max(budget !== undefined ? l.clock.elapsed() / budget : 0, stepShare(0));
  const evaluations = o.evaluations ?? 0;
  // The next of the N evaluations due (the N-th is the end's); a resumed run starts past those it made.
  let nextEvaluation = Math.floor(progress() * evaluations) + 1;
  while (t.globalStep < t.totalSteps && !stop) {
    const batches: Positioned[] = [];
    if (pending) {
      batches.push(pending.batch);
      l.trained(pending.position);
      pending = undefined;
    }
    while (batches.length < Math.min(K, t.totalSteps - t.globalStep)) {
      const next = await l.batches.next();
      if (next.done) break;
      const first = batches[0];
      if (first && (next.value.info.epoch !== first.info.epoch || next.value.batch.shape[1] !== first.batch.shape[1])) {
        pending = { batch: next.value, position: l.batches.state() };
        break;
      }
      batches.push(next.value);
      l.trained(l.batches.state());
    }
    if (batches.length === 0) break;
    if (batches[0]!.info.epoch !== t.epoch) {
      const m: Metrics = {};
      // Without a schedule of its own (evalEvery, evaluations), evaluation comes at each epoch's end.
      if (l.evaluate && o.evalEvery === 0 && !o.evaluations) Object.assign(m, await l.evaluate(carried));
      for (const cb of o.callbacks) await cb.onEpochEnd?.(t, m);
    }
    t.epoch = batches[0]!.info.epoch;
    const t0 = performance.now();
    const compilesBefore = l.compiles();
    const spent = budget !== undefined ? l.clock.elapsed() : 0;
    // With maxSteps (or epochs) as well, whichever ends first: the schedule follows the further along of
    // the time spent and the steps done, so it reaches its end with the run either way.
    const fractions =
      budget !== undefined ? batches.map((_, i) => Math.min(1, Math.max((spent + i * secondsPerStep) / budget, stepShare(i)))) : undefined;
    const out = await l.runSteps(carried, batches, t.globalStep, fractions);
    carried = t.strategy.carry(out.state);
    l.run.state = t.strategy.first(carried);
    // One copy back per call: every step's scalars packed as [K, STEP_SCALARS] by the program.
    const scalars = (await (t.strategy.keepFirst(out.scalars) as k.Array).data()) as Float32Array;
    const seconds = (performance.now() - t0) / 1000;
    if (l.compiles() > compilesBefore) {
      compileSeconds += seconds;
      l.bar?.markTrainingStart(t.globalStep + batches.length);
    } else {
      if (budget !== undefined) {
        budgetTimed = { seconds: budgetTimed.seconds + l.clock.elapsed() - spent, steps: budgetTimed.steps + batches.length };
        secondsPerStep = budgetTimed.seconds / budgetTimed.steps;
      }
      timedTokens += batches.reduce((n, g) => n + g.batch.shape[0] * g.batch.shape[1], 0) * (group?.size ?? 1);
      timedSeconds += seconds;
    }
    let stepMetrics: Metrics = {};
    batches.forEach((_, i) => {
      const { loss, correct, count, lr, skipped, nonFinite, dropped } = stepScalars(scalars, i);
      t.globalStep++;
      // Throws (ending the run before anything from this state is logged or saved) when it must stop.
      const verdict = l.watch.step(t.globalStep, loss, nonFinite > 0, skipped > 0);
      if (verdict) t.warn(verdict);
      if (skipped) t.log(`step ${t.globalStep}: gradients overflowed in f16; the update was skipped and the loss scale halved`);
      if (dropped && !warnedDropped) {
        warnedDropped = true;
        t.warn(
          `warning: step ${t.globalStep}: ${dropped} labelled positions did not fit the MLM head's capacity ` +
            `and were left out of the loss (logged as dropped_labels; said once per run): ` +
            `the masking labelled far more tokens than its probability predicts, or labelCapacity is too small`,
        );
      }
      if (nonFinite) return;
      stepMetrics = { loss, lr, accuracy: count > 0 ? correct / count : 0, ...(dropped ? { dropped_labels: dropped } : {}) };
      l.run.history.push({
        step: t.globalStep,
        loss,
        ...(skipped ? { skipped: 1 } : {}),
        ...(dropped ? { dropped_labels: dropped } : {}),
      });
      window = { loss: window.loss + loss, correct: window.correct + correct, count: window.count + count, n: window.n + 1 };
      if (window.n > 0 && (t.globalStep % o.logEvery === 0 || t.globalStep === t.totalSteps)) {
        const tps = timedSeconds > 0 ? timedTokens / timedSeconds : undefined;
        t.logMetrics({
          loss: window.loss / window.n,
          accuracy: window.count ? window.correct / window.count : 0,
          ...(tps ? { tokens_per_s: tps } : {}),
          epoch: t.epoch,
        });
        window = { loss: 0, correct: 0, count: 0, n: 0 };
      }
    });
    t.lastMetrics = stepMetrics;
    const tps = timedSeconds > 0 ? timedTokens / timedSeconds : undefined;
    l.bar?.update({
      step: t.globalStep,
      totalSteps: budget !== undefined ? budgetedTotal(t, l.clock, budget, secondsPerStep) : t.totalSteps,
      loss: stepScalars(scalars, batches.length - 1).loss,
      ...(tps ? { tokensPerSecond: tps } : {}),
      compileSeconds,
    });
    for (const cb of o.callbacks) await cb.onStepEnd?.(t, stepMetrics);
    if (o.evalEvery > 0 && l.evaluate && t.globalStep % o.evalEvery === 0) await l.evaluate(carried);
    const reached = progress();
    if (l.evaluate && nextEvaluation < evaluations && reached >= nextEvaluation / evaluations) {
      await l.evaluate(carried);
      nextEvaluation = Math.floor(reached * evaluations) + 1;
    }
    if (o.checkpointEvery > 0 && t.globalStep % o.checkpointEvery === 0) await t.saveCheckpoint("steps", stepMetrics);
    if (budget !== undefined && !budgetReached) {
      // Stop after the last call that leaves the final evaluation room within the budget: the next one
      // would not. The final evaluation is expected to take what the last one took.
      const now = l.clock.elapsed();
      const finalEval = l.evaluate ? (l.clock.lastEvalSeconds ?? l.evalBatches * EVAL_BATCH_STEPS * secondsPerStep) : 0;
      if (now >= budget || now + secondsPerStep * Math.min(K, t.totalSteps - t.globalStep) + finalEval > budget) {
        budgetReached = t.shouldStop = true;
        t.log(`time budget of ${formatSeconds(budget)} reached: ${t.globalStep} steps in ${formatSeconds(now)}`);
      }
    }
    const requested = t.stopRequested !== undefined;
    if (group) {
      // A request (or a callback's stop) on any rank stops every rank after the same step, so that all
      // of them take the same path out (checkpoint, final model) and meet at the same collectives. The
      // request is never cleared: one that arrives during this agreement counts at the next one.
      const agreed = await agreeToStop(group, t.shouldStop || requested, interrupted || requested);
      t.shouldStop = agreed.stop;
      ({ stop, interrupted } = agreed);
    } else {
      interrupted = requested;
      stop = t.shouldStop || requested;
    }
  }
  return { carried, interrupted, compileSeconds, tokensPerSecond: timedSeconds ? timedTokens / timedSeconds : 0, budgetReached };
}

/** The progress bar's total under a time budget: the steps reached so far and those the time left holds. */
function budgetedTotal(t: FitLoopHost, clock: TrainingClock, budget: number, secondsPerStep: number): number {
  if (secondsPerStep <= 0) return Number.isFinite(t.totalSteps) ? t.totalSteps : t.globalStep;
  const left = Math.max(0, Math.floor((budget - clock.elapsed()) / secondsPerStep));
  return Math.min(t.totalSteps, t.globalStep + left);
}
