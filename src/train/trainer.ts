// The Trainer: fit() runs the compiled training step of a masked or causal LM over a streaming dataset,
// or of a sequence classifier over length-bucketed labelled batches (batch-source.ts), with evaluation,
// logging, checkpoints and exact resume (Lightning's Trainer, Keras' fit, for Kiln's whole-step
// programs). The model decides the objective (objectives/select.ts). Its parts: run-plan.ts
// (optimizer, objectives, run settings), checkpoint-connector.ts (checkpoints, resume, the final model),
// logger-connector.ts (metrics to the loggers), trainer-placement.ts (devices and processes),
// compiled-steps.ts (the programs), fit-loop.ts (the steps), evaluation-loop.ts (evaluation).
// It installs no signal handlers: whoever runs it stops it with requestStop (or the `signal` option).
import * as k from "../core/index.js";
import { OptionError } from "../core/option-error.js";
import type { DatasetState } from "../data/pipeline/dataset.js";
import type { Params } from "../models/language-model.js";
import type { Metrics, TrainerView } from "./callbacks.js";
import { CheckpointConnector, type RunRecord } from "./checkpoint-connector.js";
import { LoggerConnector } from "./logger-connector.js";
import { DivergenceWatch } from "./divergence.js";
import type { TrainState } from "./train-step.js";
import { ProgressBar } from "./progress.js";
import type { Strategy } from "../distribute/strategy.js";
import { lossScaleInit, precisionPolicy, type PrecisionPolicy } from "../optim/precision.js";
import { agreeOnSettings, rankPrefix, type ProcessGroup } from "../distribute/multi-process.js";
import { processRows } from "./process-rows.js";
import { runSettingsDigest } from "./run-agreement.js";
import { planRun } from "./run-plan.js";
import { takeRunLock } from "./run-lock.js";
import { checkFitArgs, checkTrainerOptions } from "./trainer-options-check.js";
import { placeTrainer } from "./trainer-placement.js";
import { compileSteps } from "./compiled-steps.js";
import { runEvaluation, type Evaluation } from "./evaluation-loop.js";
import { runFitLoop } from "./fit-loop.js";
import type { Positioned } from "./step-inputs.js";
import { batchSourceOf, type BatchSource, type TrainBatch } from "./batch-source.js";
import { budgetSeconds, monotonicSeconds, TrainingClock } from "./time-budget.js";
import type { Optimizer } from "../optim/optimizer.js";
import type { FitArgs, FitResult, RunSettings, StopRequest, StoppedRun, TrainerOptions } from "./trainer-options.js";

export type {
  TrainerOptions,
  OptimizerSettings,
  FitArgs,
  MaskingSettings,
  FitResult,
  RunSettings,
  StopRequest,
  StoppedRun,
} from "./trainer-options.js";

type Defaulted =
  | "evalEvery"
  | "evalAtStart"
  | "logEvery"
  | "seed"
  | "gradientAccumulation"
  | "stepsPerExecution"
  | "checkpointEvery"
  | "keepCheckpoints"
  | "resume"
  | "overwrite"
  | "onNonFinite"
  | "callbacks"
  | "precision"
  | "progress"
  | "optimizer";

/** Trains a model on a dataset with checkpoints, evaluation, callbacks and resumption (Lightning's Trainer). */
export class Trainer implements TrainerView {
  globalStep = 0;
  epoch = 0;
  totalSteps = 0;
  shouldStop = false;
  lastMetrics: Metrics = {};
  private stop: StopRequest | undefined;
  private readonly o: Required<Pick<TrainerOptions, Defaulted>> & TrainerOptions;
  readonly strategy: Strategy;
  readonly policy: PrecisionPolicy;
  /** The processes this one trains with (undefined when it trains alone). */
  readonly group: ProcessGroup | undefined;
  private readonly logs: LoggerConnector;
  private readonly checkpoints: CheckpointConnector;
  private bar: ProgressBar | undefined;
  private run: RunRecord | undefined;
  private writes = 0;
  private stopping = false;

  constructor(options: TrainerOptions) {
    checkTrainerOptions(options);
    this.o = {
      evalEvery: 0,
      evalAtStart: false,
      logEvery: 10,
      seed: 42,
      gradientAccumulation: 1,
      stepsPerExecution: 1,
      checkpointEvery: 0,
      keepCheckpoints: 3,
      resume: false,
      overwrite: false,
      onNonFinite: "stop",
      callbacks: [],
      precision: "32",
      progress: true,
      optimizer: "adamw",
      ...options,
    };
    this.policy = precisionPolicy(this.o.precision);
    this.logs = new LoggerConnector(options.loggers);
    this.checkpoints = new CheckpointConnector(this.o, this);
    ({ strategy: this.strategy, group: this.group } = placeTrainer(options));
    if (options.maxTime !== undefined && this.group)
      throw new OptionError({
        where: "Trainer",
        option: "maxTime",
        value: options.maxTime,
        why: `is not supported in a multi-process run (${this.group.size} processes): each process has its own clock`,
        fix: "Give maxSteps, or train in one process",
      });
  }

  /** Replicas over all processes: each process's devices × the processes. */
  get worldReplicas(): number {
    return this.strategy.numReplicas * (this.group?.size ?? 1);
  }

  /** Rank 0 writes the run's files and owns the console; the other ranks only compute (and warn, prefixed). */
  get isMainRank(): boolean {
    return (this.group?.rank ?? 0) === 0;
  }

  /** Where parameters, optimizer state and replica 0's results live. */
  private get device(): k.Device {
    return this.strategy.devices[0]!;
  }

  get stopRequested(): StopRequest | undefined {
    return this.stop;
  }

  /**
   * Stops the run unfinished after the step in flight (the compiled call in flight, with
   * stepsPerExecution): a checkpoint is written, the final model is not, and fit() returns with
   * `stopped` saying where. Safe to call at any time, from a signal handler too; the first request's
   * reason is kept. In a multi-process run every rank stops after the same step.
   */
  requestStop(request: StopRequest = { reason: "requested" }): void {
    this.stop ??= { reason: request.reason };
  }

  /**
   * A checkpoint is being written, or a stopped run is writing its last one (and pushing it, with a push
   * callback): a second signal should wait for it rather than quit.
   */
  get saving(): boolean {
    return this.writes > 0 || this.stopping;
  }

  log(message: string): void {
    if (!this.isMainRank) return;
    if (this.bar) this.bar.log(message);
    else if (this.o.progress) console.error(message);
  }

  /** A message the user must see even without progress output (a warning about the run). */
  warn(message: string): void {
    if (this.bar) this.bar.log(message);
    else console.error(rankPrefix(this.group) + message);
  }

  logMetrics(metrics: Metrics): void {
    this.logs.logMetrics(this.globalStep, metrics);
  }

  /** `metrics.best_metric` (else eval_loss) is recorded as the best value when `reason` is "best". */
  async saveCheckpoint(reason: string, metrics: Metrics): Promise<string> {
    this.writes++;
    try {
      return await this.checkpoints.save(this.run!, reason, metrics);
    } finally {
      this.writes--;
    }
  }

  async fit(a: FitArgs): Promise<FitResult> {
    checkFitArgs(a);
    // The process that writes holds the output directory for the whole run: a second run is refused (run-lock.ts).
    const lock = this.isMainRank ? await takeRunLock(this.o.outputDir, (m) => this.warn(`warning: ${m}`)) : undefined;
    try {
      return await this.fitHoldingOutputDir(a);
    } finally {
      await lock?.release();
    }
  }

  private async fitHoldingOutputDir(a: FitArgs): Promise<FitResult> {
    const o = this.o;
    const data = { train: await batchSourceOf(a.train), eval: a.eval ? await batchSourceOf(a.eval) : undefined };
    const rows = this.checkFit(a, data.train);
    const budget = o.maxTime !== undefined ? budgetSeconds(o.maxTime) : undefined;
    // A time budget alone bounds the run; with maxSteps or epochs as well, whichever ends first.
    this.totalSteps = o.maxSteps ?? (budget !== undefined && o.epochs === undefined ? Infinity : (o.epochs ?? 1) * rows);
    this.stopping = false;
    const { optimizer, optimizerAt, objective, evalObjective, settings } = planRun(
      { ...o, ...(budget !== undefined ? { budgetSeconds: budget } : {}) },
      a,
      this.totalSteps,
      (m) => this.warn(m),
    );
    // The data is gone through as often as the steps need (HF's and Lightning's epochs): a dataset
    // opened for fewer epochs is read again, each epoch in its own order.
    const train = data.train.epochs * rows < this.totalSteps ? data.train.withEpochs(Infinity) : data.train;
    if (this.group)
      await agreeOnSettings(this.group, runSettingsDigest({ options: this.o, localReplicas: this.strategy.numReplicas }, a, settings));
    await this.checkpoints.prepareDirectory({ resume: o.resume, overwrite: o.overwrite });
    const start = await this.startingState(a, optimizer, settings);
    const lengths = { train: data.train.batchLengths, eval: data.eval?.batchLengths ?? [] };
    // The training time starts here (compiles count): a resumed run's goes on from its checkpoint's.
    const clock = new TrainingClock(o.clock ?? monotonicSeconds, start.trainSeconds, budget);
    const { runSteps, compiles, evalFn, programs } = compileSteps(
      this.strategy,
      this.group,
      { ...o, policy: this.policy },
      objective,
      evalObjective,
      optimizer,
      lengths,
      optimizerAt,
    );
    // Length-bucketed data compiles one program per batch length it meets: say how many it can be.
    if (lengths.train.length > 1 || lengths.eval.length > 1)
      this.log(
        `batch lengths: training ${lengths.train.join(", ")}` +
          (lengths.eval.length ? `; evaluation ${lengths.eval.join(", ")}` : "") +
          ` (a compiled program each, ${lengths.train.length + lengths.eval.length} at most` +
          (o.stepsPerExecution > 1 ? `, and one more per length where a call holds fewer than ${o.stepsPerExecution} steps)` : ")"),
      );

    // The state the compiled step carries between calls: on devices with their own memory, every replica
    // keeps its copy (its buffers donated to the next call); `run.state` is replica 0's view, for
    // evaluation inputs where devices share memory, checkpoints and the final model.
    let carried = this.strategy.replicate(start.state);
    const iterator = train
      .map((batch, info): Positioned => (this.group ? processRows(batch, info, this.group) : { batch, info }))
      .iterator(start.dataState);
    // The data position saved in checkpoints: just past the last batch trained on (a batch read ahead
    // for the next group is not counted).
    let trainedPosition = iterator.state();
    const run: RunRecord = {
      model: a.model,
      task: objective.task,
      state: this.strategy.first(carried),
      data: () => trainedPosition,
      history: start.history,
      settings,
      trainSeconds: () => clock.elapsed(),
      ...(a.tokenizerDir ? { tokenizerDir: a.tokenizerDir } : {}),
    };
    this.run = run;
    const evalHistory: Metrics[] = [];
    const evaluation: Evaluation | undefined = data.eval
      ? { evalFn, data: data.eval, task: objective.task, callbacks: o.callbacks, history: evalHistory, model: a.model }
      : undefined;
    // Timed: under a time budget the last evaluation's time is kept free for the final one.
    const evaluate = evaluation ? (s: TrainState) => clock.timeEvaluation(() => runEvaluation(this, evaluation, s)) : undefined;
    const watch = new DivergenceWatch({
      outcomes: objective.outcomes ?? { count: a.model.config.vocab_size, noun: "tokens" },
      learningRate: a.optimizer.learningRate,
      policy: o.onNonFinite,
      precision: o.precision,
      ...(o.clipNorm ? { clipNorm: o.clipNorm } : {}),
    });
    if (this.isMainRank) this.logs.start(o.outputDir, { ...settings, seed: o.seed, steps_per_execution: o.stepsPerExecution });
    this.bar = o.progress && this.isMainRank ? new ProgressBar("train") : undefined;
    const onAbort = () => this.requestStop({ reason: abortReason(o.signal!) });
    if (o.signal?.aborted) onAbort();
    o.signal?.addEventListener("abort", onAbort, { once: true });

    let compileSeconds = 0,
      tokensPerSecond = 0;
    let status: "success" | "stopped" | "failed" = "failed";
    let stopped: StoppedRun | undefined;
    for (const cb of o.callbacks) await cb.onTrainStart?.(this);
    try {
      if (o.evalAtStart && evaluate && !start.resumed) await evaluate(carried);
      const loop = await runFitLoop(this, {
        options: o,
        run,
        carried,
        batches: iterator,
        trained: (position) => (trainedPosition = position),
        runSteps,
        compiles,
        evaluate,
        watch,
        bar: this.bar,
        clock,
        evalBatches: data.eval?.batchesPerEpoch ?? 0,
      });
      ({ carried, compileSeconds, tokensPerSecond } = loop);
      clock.stop();
      const ended = watch.finish();
      if (ended) this.warn(ended);
      stopped = await this.endRun(a, run, loop.interrupted, evaluate && (() => evaluate(carried)), evalHistory);
      status = stopped ? "stopped" : "success";
    } finally {
      o.signal?.removeEventListener("abort", onAbort);
      await iterator.return();
      await this.logs.finalize(status);
      // A time budget alone has no step count: the bar ends full at the step reached.
      this.bar?.done({
        step: this.globalStep,
        totalSteps: Number.isFinite(this.totalSteps) ? this.totalSteps : this.globalStep,
        compileSeconds,
      });
      this.bar = undefined;
    }
    const made = programs();
    if (lengths.train.length > 1 || lengths.eval.length > 1)
      // A call of fewer steps than stepsPerExecution (at an epoch's end or a length change) is one more training compile.
      this.log(
        `batch lengths met: ${made.train} in training (${compiles()} training step compiles)` +
          (data.eval ? `, ${made.eval} in evaluation (an evaluation program each)` : ""),
      );
    for (const cb of o.callbacks) await cb.onFitEnd?.(this, o.outputDir);
    return {
      params: this.strategy.keepFirst(carried).params,
      globalStep: this.globalStep,
      history: run.history,
      evalHistory,
      compileSeconds,
      tokensPerSecond,
      trainSeconds: clock.elapsed(),
      ...(stopped ? { stopped } : {}),
      ...(evaluation?.report ? { evalReport: evaluation.report } : {}),
      ...(evaluation?.details ? { evalDetails: evaluation.details } : {}),
    };
  }

  /** What fit() refuses before any work; returns the batches per epoch. */
  private checkFit(a: FitArgs, train: BatchSource<TrainBatch>): number {
    const o = this.o;
    const rows = train.batchesPerEpoch;
    if (rows === 0)
      throw new OptionError({
        where: "Trainer.fit",
        option: "train",
        value: a.train.files,
        why: `holds ${a.train.numRecords} records, fewer than one batch of ${a.train.batchSize}`,
        fix: "Open it with a smaller batchSize, or add data",
      });
    if (o.signal !== undefined && !(o.signal instanceof AbortSignal))
      throw new OptionError({
        where: "Trainer",
        option: "signal",
        value: o.signal,
        why: "is not an AbortSignal",
        fix: "Give an AbortController's signal",
      });
    checkStepIntervals(o);
    const globalBatch = a.train.batchSize;
    if (globalBatch % (this.worldReplicas * o.gradientAccumulation) !== 0)
      throw new OptionError({
        where: "Trainer.fit",
        option: "gradientAccumulation",
        value: o.gradientAccumulation,
        why:
          `does not split the global batch of ${globalBatch} evenly over ` +
          `${this.worldReplicas} replicas${this.group ? ` (${this.group.size} processes × ${this.strategy.numReplicas})` : ""}`,
        fix: `Make the training data's batchSize a multiple of ${this.worldReplicas} × gradientAccumulation`,
      });
    return rows;
  }

  /** The state training starts from: resumed from the newest checkpoint, given, or a fresh init. */
  private async startingState(
    a: FitArgs,
    optimizer: Optimizer<any>,
    settings: RunSettings,
  ): Promise<{ state: TrainState; dataState?: DatasetState; history: Metrics[]; resumed: boolean; trainSeconds: number }> {
    const o = this.o;
    const resumed = o.resume ? await this.checkpoints.resume(a.model, this.device, optimizer, settings) : undefined;
    let state: TrainState;
    if (resumed) {
      state = resumed.state;
      this.globalStep = resumed.globalStep;
      this.epoch = resumed.epoch;
      if (this.isMainRank) for (const line of await this.logs.rewind(o.outputDir, this.globalStep)) this.log(`resume: ${line}`);
    } else {
      if (o.resume) {
        this.warn(`resume: no checkpoint in ${o.outputDir}; starting from scratch`);
        if (this.isMainRank) await this.logs.rewind(o.outputDir, -1);
      }
      const init = k.jit((key: k.Array) => a.model.init(key), { name: "init", device: this.device });
      const params = a.params ?? init(k.randomKey(o.seed, this.device));
      state = { params, opt: k.jit((p: Params) => optimizer.init(p), { name: "optimizer_init", device: this.device })(params) };
    }
    if (this.group)
      await agreeOnSettings(
        this.group,
        { resumed_from: resumed?.path ?? null, global_step: this.globalStep },
        `every rank reads the checkpoints rank 0 writes: put outputDir on storage every process sees (one host, or a shared filesystem)`,
      );
    if (this.policy.paramDtype !== "f32") state.params = k.treeMap((p: k.Array) => p.astype(this.policy.paramDtype), state.params);
    if (this.policy.lossScaling) state.scaler ??= lossScaleInit(o.lossScale);
    else delete state.scaler;
    return resumed
      ? { state, dataState: resumed.dataState, history: resumed.history, resumed: true, trainSeconds: resumed.trainSeconds }
      : { state, history: [], resumed: false, trainSeconds: 0 };
  }

  /**
   * The end of a run: the final evaluation, the last checkpoint and the final model; or, for a requested
   * stop before the last step, the quickest way out (no final evaluation, no final model) with a
   * checkpoint to resume from, returned as where it stopped.
   */
  private async endRun(
    a: FitArgs,
    run: RunRecord,
    interrupted: boolean,
    evaluate: (() => Promise<Metrics>) | undefined,
    evalHistory: Metrics[],
  ): Promise<StoppedRun | undefined> {
    const finished = !interrupted || this.globalStep >= this.totalSteps;
    const reason = interrupted ? "interrupted" : "end";
    if (!finished) this.stopping = true;
    const finalMetrics: Metrics = {};
    const evaluatedNow = evalHistory.at(-1)?.step === this.globalStep;
    try {
      if (evaluate && finished) Object.assign(finalMetrics, evaluatedNow ? evalHistory.at(-1)! : await evaluate());
    } catch (e) {
      // The final evaluation reads data that can still fail (a storage error): the trained state is
      // saved first, so the run's work is not lost with it.
      await this.saveCheckpoint(reason, {});
      await this.checkpoints.writeFinal(a, run.state, run.history, evalHistory);
      this.warn(`the final evaluation failed; the trained model was saved to ${this.o.outputDir} first`);
      throw e;
    }
    const checkpoint = await this.saveCheckpoint(reason, finalMetrics);
    for (const cb of this.o.callbacks) await cb.onTrainEnd?.(this, finalMetrics);
    if (finished) return void (await this.checkpoints.writeFinal(a, run.state, run.history, evalHistory));
    return { reason: this.stop?.reason ?? "another process's stop request", step: this.globalStep, checkpoint };
  }
}

/** The reason of an aborted signal as a stop reason: its string, or the error's message. */
function abortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  return typeof r === "string" ? r : r instanceof Error && r.name !== "AbortError" ? r.message : "aborted";
}

/**
 * Callbacks, evaluations and checkpoints happen between compiled calls: their intervals are multiples
 * of stepsPerExecution.
 */
function checkStepIntervals(o: { stepsPerExecution: number; evalEvery: number; checkpointEvery: number }): void {
  const K = o.stepsPerExecution;
  if (!Number.isInteger(K) || K < 1)
    throw new OptionError({ where: "Trainer", option: "stepsPerExecution", value: K, why: "must be a positive integer" });
  for (const [name, every] of [
    ["evalEvery", o.evalEvery],
    ["checkpointEvery", o.checkpointEvery],
  ] as const) {
    if (every % K !== 0)
      throw new OptionError({
        where: "Trainer",
        option: name,
        value: every,
        why: `is not a multiple of stepsPerExecution ${K}: evaluations and checkpoints happen between compiled calls`,
        fix: `Give a multiple of ${K}`,
      });
  }
}
