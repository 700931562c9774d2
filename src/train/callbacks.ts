// Trainer callbacks (Lightning/Keras style): hooks called at fixed points of fit(). A callback may ask
// the trainer to stop (early stopping) and sees every logged metric.

import type { StopRequest } from "./trainer-options.js";

/** Named numbers of one step or evaluation (loss, eval_loss, accuracy, lr, …). */
export type Metrics = Record<string, number>;

/** What a callback sees of the Trainer: its progress and the methods it may call. */
export interface TrainerView {
  readonly globalStep: number;
  readonly epoch: number;
  readonly totalSteps: number;
  /** The metrics of the last optimizer step (loss, lr, accuracy, …); empty before the first. */
  readonly lastMetrics: Metrics;
  /** Set true to end training after the current step, as finished (the final model is written). */
  shouldStop: boolean;
  /** The stop asked for with requestStop (or the Trainer's `signal`), if any. */
  readonly stopRequested: StopRequest | undefined;
  /**
   * Stops the run unfinished after the step in flight: a checkpoint is written (no final model) and
   * fit() returns with `stopped`, for a later run to resume. The first request's reason is kept.
   */
  requestStop(request?: StopRequest): void;
  /** Saves a checkpoint now (used by the checkpoint callback). */
  saveCheckpoint(reason: string, metrics: Metrics): Promise<string>;
  /** Sends metrics to the loggers (JSON lines, TensorBoard) at the current step. */
  logMetrics(metrics: Metrics): void;
  log(message: string): void;
}

/** Hooks the Trainer calls at the start and end of training, after each step, and after each evaluation. */
export interface Callback {
  onTrainStart?(t: TrainerView): void | Promise<void>;
  /** After each optimizer step, with that step's metrics (loss, lr, …). */
  onStepEnd?(t: TrainerView, metrics: Metrics): void | Promise<void>;
  onEvalEnd?(t: TrainerView, metrics: Metrics): void | Promise<void>;
  onEpochEnd?(t: TrainerView, metrics: Metrics): void | Promise<void>;
  onTrainEnd?(t: TrainerView, metrics: Metrics): void | Promise<void>;
  /** After a checkpoint directory is written (and older ones pruned), with its path. */
  onCheckpointSaved?(t: TrainerView, path: string): void | Promise<void>;
  /** After fit() has written everything (final model, last checkpoint) and closed its loggers. */
  onFitEnd?(t: TrainerView, outputDir: string): void | Promise<void>;
}

/** Options of ModelCheckpoint: when to save. */
export interface CheckpointOptions {
  /** Save every N optimizer steps (0: never by steps). */
  everySteps?: number;
  /** Save at the end of every epoch. */
  everyEpoch?: boolean;
  /** Save after each evaluation that improves `monitor` (the "best" checkpoint is kept regardless of keepLast). */
  saveBest?: boolean;
  monitor?: string;
  mode?: "min" | "max";
}

/** Saves checkpoints on a schedule; retention (keep last k, keep best) is the checkpoint store's job. */
export class ModelCheckpoint implements Callback {
  private best: number | undefined;
  constructor(private readonly o: CheckpointOptions = {}) {}

  async onStepEnd(t: TrainerView, m: Metrics) {
    const n = this.o.everySteps ?? 0;
    if (n > 0 && t.globalStep % n === 0) await t.saveCheckpoint("steps", m);
  }

  async onEpochEnd(t: TrainerView, m: Metrics) {
    if (this.o.everyEpoch) await t.saveCheckpoint("epoch", m);
  }

  async onEvalEnd(t: TrainerView, m: Metrics) {
    if (!this.o.saveBest) return;
    const key = this.o.monitor ?? "eval_loss";
    const v = m[key];
    if (v === undefined) return;
    const better = this.best === undefined || ((this.o.mode ?? "min") === "min" ? v < this.best : v > this.best);
    if (better) {
      this.best = v;
      await t.saveCheckpoint("best", { ...m, best_metric: v });
    }
  }
}

/** Options of EarlyStopping: the metric watched, its direction, and the patience. */
export interface EarlyStoppingOptions {
  monitor?: string;
  mode?: "min" | "max";
  /** Evaluations without improvement before stopping. */
  patience?: number;
  /** Smallest change that counts as an improvement. */
  minDelta?: number;
}

/** Stops training when the monitored metric has not improved for `patience` evaluations. */
export class EarlyStopping implements Callback {
  private best: number | undefined;
  private bad = 0;
  constructor(private readonly o: EarlyStoppingOptions = {}) {}

  onEvalEnd(t: TrainerView, m: Metrics) {
    const key = this.o.monitor ?? "eval_loss";
    const v = m[key];
    if (v === undefined) return;
    const sign = (this.o.mode ?? "min") === "min" ? 1 : -1;
    if (this.best === undefined || sign * (this.best - v) > (this.o.minDelta ?? 0)) {
      this.best = v;
      this.bad = 0;
    } else if (++this.bad >= (this.o.patience ?? 3)) {
      t.shouldStop = true;
      t.log(`early stopping: ${key} has not improved for ${this.bad} evaluations (best ${this.best.toFixed(4)})`);
    }
  }
}

/** Logs the learning rate of every `every`-th step to the loggers as "lr" (Lightning's LearningRateMonitor). */
export class LearningRateMonitor implements Callback {
  constructor(private readonly every = 1) {}
  onStepEnd(t: TrainerView, m: Metrics) {
    if (m.lr !== undefined && t.globalStep % this.every === 0) t.logMetrics({ lr: m.lr });
  }
}
