// The Trainer: fit() runs the compiled training step of a masked or causal LM over a streaming dataset
// with evaluation, logging, checkpoints and exact resume (Lightning's Trainer, Keras' fit, for Kiln's
// whole-step programs). The model decides the objective (objectives/select.ts).
import { mkdir, readFile } from "node:fs/promises";
import { writeFileAtomic } from "../io/atomic-file.js";
import { join } from "node:path";
import { constants as osConstants } from "node:os";
import * as k from "../core/index.js";
import type { TokenBatch } from "../data/batch.js";
import type { BatchInfo, DatasetState, TFRecordDataset } from "../data/pipeline/dataset.js";
import type { MaskedLanguageModel } from "../models/masked-lm.js";
import type { CausalLanguageModel } from "../models/causal-lm.js";
import type { LanguageModel, Params } from "../models/language-model.js";
import { saveModel } from "../models/pretrained.js";
import { createOptimizer, type OptimizerName } from "../optim/by-name.js";
import type { Optimizer } from "../optim/optimizer.js";
import { cosineDecay, defaultWarmup, linearWarmupDecay, type Schedule } from "../optim/schedules.js";
import type { TracedMaskOptions } from "../data/mlm/mask-traced.js";
import type { Callback, Metrics, TrainerView } from "./callbacks.js";
import {
  checkpointPath,
  cleanCheckpointLeftovers,
  copyTokenizerFiles,
  listCheckpoints,
  loadNewestCheckpoint,
  pruneCheckpoints,
  saveCheckpoint,
  type TrainerStateJson,
} from "./checkpoint.js";
import { JsonLinesLogger, truncateMetricsFile, type MetricsLogger } from "./loggers.js";
import { prepareOutputDir } from "./output-dir.js";
import { DivergenceWatch } from "./divergence.js";
import { TensorBoardLogger } from "./tensorboard.js";
import type { LayerLoop } from "../models/transformer-encoder.js";
import {
  makeEvalStep,
  makeMultiStep,
  makeTrainStep,
  stepScalars,
  type StackedStepInputs,
  type StepInputs,
  type TrainState,
} from "./train-step.js";
import { objectiveFor } from "./objectives/select.js";
import { taskSpec } from "./tasks/index.js";
import type { TrainingTask } from "./objectives/objective.js";
import { ProgressBar } from "./progress.js";
import {
  launchedAcceleratorPlace,
  selectDevices,
  type Accelerator,
  type CpuExecutorName,
  type DevicesSpec,
} from "../distribute/devices.js";
import { makeStrategy, type Strategy, type StrategyName } from "../distribute/strategy.js";
import { PerReplica } from "../distribute/per-replica.js";
import { lossScaleInit, precisionPolicy, type LossScaleOptions, type PrecisionName, type PrecisionPolicy } from "../optim/precision.js";
import { lossCurveHtml } from "./plot.js";
import {
  agreeOnSettings,
  agreeToStop,
  joinProcessGroup,
  rankPrefix,
  acceleratorProcessPlace,
  joinAcceleratorGroup,
  type ProcessGroup,
} from "../distribute/multi-process.js";
import type { KeyValueStore } from "../distribute/store-group-comm.js";
import { CrossProcessSteps } from "./cross-process-steps.js";
import { processRows } from "./process-rows.js";
import { runSettingsDigest } from "./run-agreement.js";

/** The signals that stop a run after its current step, with a checkpoint. */
const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

export interface TrainerOptions {
  outputDir: string;
  /** Stop after this many optimizer steps (default: epochs × steps per epoch). */
  maxSteps?: number;
  epochs?: number;
  /** Evaluate every N steps (0: only at the end of each epoch and of training). */
  evalEvery?: number;
  /** Evaluate once before the first step too (the starting point of the eval curve). */
  evalAtStart?: boolean;
  /** Log metrics every N steps. */
  logEvery?: number;
  seed?: number;
  /** Micro-batches per optimizer step (gradient accumulation). */
  gradientAccumulation?: number;
  /**
   * Optimizer steps per compiled call (Keras' steps_per_execution): one host round trip per K steps.
   * Callbacks, evaluation and checkpoints then happen between calls, so their intervals must be
   * multiples of K.
   */
  stepsPerExecution?: number;
  /**
   * How the compiled step holds its repeated parts: the K steps of one execution and the encoder's
   * layers, each "unrolled" (the default: as fast on a quiet CPU, much faster on a busy one; docs/loops.md) or
   * "scan" (one loop: the program and its compile time stop growing with K and the depth).
   */
  loops?: { steps?: "unrolled" | "scan"; layers?: LayerLoop };
  clipNorm?: number;
  /**
   * The update rule: "adamw" (default), "adafactor" or "lion", made with FitArgs.optimizer's settings and
   * schedule; or an Optimizer object, used as it is (its own rate and settings; FitArgs.optimizer then
   * gives only the learning rate that run settings record).
   */
  optimizer?: OptimizerName | Optimizer<any>;
  /** Checkpoint every N steps (0: only at the end). */
  checkpointEvery?: number;
  /** Checkpoints kept (the newest; the best by eval loss is kept too). */
  keepCheckpoints?: number;
  /** Continue from the newest checkpoint in outputDir (falling back past damaged ones). */
  resume?: boolean;
  /**
   * A fresh run refuses an output directory that already holds files; with `overwrite` it removes the
   * files of the run that is there first (transformers' `overwrite_output_dir`).
   */
  overwrite?: boolean;
  /**
   * A step whose loss or gradient norm is NaN or infinite: "stop" (default) ends the run with an error
   * naming the step and writes nothing from the diverged state; "skip" leaves parameters and optimizer
   * state as they were for that step and goes on, stopping after `MAX_SKIPPED_IN_A_ROW` in a row.
   */
  onNonFinite?: "stop" | "skip";
  callbacks?: Callback[];
  /** Lightning's precision names: "32" (default), "bf16-mixed", "bf16-true", "16-mixed". */
  precision?: PrecisionName;
  /** Dynamic loss scaling under "16-mixed" (initial scale, growth interval). */
  lossScale?: LossScaleOptions;
  /** "cpu", "gpu", "tpu" or "auto" (an accelerator when one is found, else the CPU). */
  accelerator?: Accelerator;
  /** How many devices (or which): "auto", N, or a list of indices. Per process when several run (Lightning's devices per node). */
  devices?: DevicesSpec;
  /**
   * Processes training together (Lightning's num_nodes), each with `devices` replicas: started by
   * mpiexec/mpirun, which this process's environment names; gradients are summed across them by MPI.
   * Default: as many as were started (1 when started alone).
   */
  numNodes?: number;
  /**
   * The run's coordination store (kiln/launch's StoreClient on KILN_COORDINATOR), for processes that train on
   * GPUs/TPUs as one of several: their barriers and agreements go through it (MPI's on CPUs).
   */
  coordinationStore?: KeyValueStore;
  /** Who runs the CPU: "ort" (ONNX Runtime, default) or "xla" (XLA's CPU plugin, a client with as many devices as asked for). */
  executor?: CpuExecutorName;
  /** A PJRT plugin to load (else KILN_PJRT_PLUGIN, else discovery). */
  pjrtPlugin?: string;
  /** "auto" (data parallel over several devices), "one-device", "data-parallel", or a Strategy. */
  strategy?: StrategyName | Strategy;
  /** Print progress (default true). */
  progress?: boolean;
}

export interface OptimizerSettings {
  learningRate: number;
  weightDecay?: number;
  /** Warmup steps (default: a twentieth of the total, as the reference). */
  warmupSteps?: number;
  schedule?: "linear" | "cosine";
  /** AdamW's β1 (default 0.9); Lion's b1 (0.9); Adafactor: a first moment with this decay (default none). */
  beta1?: number;
  /** AdamW's β2 (default 0.999); Lion's b2 (0.99); Adafactor has none. */
  beta2?: number;
  /** AdamW's ε (default 1e-8); Adafactor and Lion have none. */
  eps?: number;
}

export interface FitArgs {
  /**
   * The model, which decides the objective: a masked LM (RoBERTa, BERT) trains on masked tokens and
   * needs `masking`; a causal LM (Llama, GPT-2) trains on next-token prediction (the shift is done in
   * the compiled step) and takes no masking. Both read the same `kiln data prepare` shards.
   */
  model: MaskedLanguageModel | CausalLanguageModel;
  /** Start from these parameters (default: a fresh init from the seed). */
  params?: Params;
  optimizer: OptimizerSettings;
  train: TFRecordDataset<TokenBatch>;
  eval?: TFRecordDataset<TokenBatch>;
  /** The masking of a masked LM (the seed is the Trainer's); a causal LM refuses it. */
  masking?: Omit<TracedMaskOptions, "seed">;
  /**
   * Masked LMs only: labelled positions per micro-batch the vocabulary head has room for (default: 8 standard deviations
   * above the expected count, which a labelling exceeds with p < 1e-15). Any beyond it are left out of
   * the loss; the run warns once and logs `dropped_labels` on the steps where that happened.
   */
  labelCapacity?: number;
  /** Copied into every checkpoint and the final model directory. */
  tokenizerDir?: string;
}

export interface FitResult {
  params: Params;
  globalStep: number;
  history: Metrics[];
  evalHistory: Metrics[];
  compileSeconds: number;
  tokensPerSecond: number;
}

type Positioned = { batch: TokenBatch; info: BatchInfo };

export class Trainer implements TrainerView {
  globalStep = 0;
  epoch = 0;
  totalSteps = 0;
  shouldStop = false;
  private readonly o: Required<
    Omit<
      TrainerOptions,
      | "maxSteps"
      | "epochs"
      | "loops"
      | "clipNorm"
      | "accelerator"
      | "devices"
      | "numNodes"
      | "executor"
      | "pjrtPlugin"
      | "strategy"
      | "lossScale"
      | "coordinationStore"
    >
  > &
    TrainerOptions;
  readonly strategy: Strategy;
  readonly policy: PrecisionPolicy;
  /** The processes this one trains with (undefined when it trains alone). */
  readonly group: ProcessGroup | undefined;
  private loggers: MetricsLogger[] = [];
  private bar: ProgressBar | undefined;
  private current:
    | {
        model: LanguageModel;
        task: TrainingTask;
        state: TrainState;
        data: () => DatasetState;
        tokenizerDir?: string;
        history: Metrics[];
        settings: RunSettings;
      }
    | undefined;
  private bestMetric: number | undefined;
  private bestCheckpoint: string | undefined;

  constructor(options: TrainerOptions) {
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
    // A launched GPU/TPU process needs the store before its client (made for all processes) is created.
    const selects = typeof options.strategy !== "object" && (options.accelerator ?? options.devices ?? options.executor) !== undefined;
    const launched = selects
      ? launchedAcceleratorPlace({
          accelerator: options.accelerator ?? "auto",
          ...(options.pjrtPlugin ? { pjrtPlugin: options.pjrtPlugin } : {}),
        })
      : undefined;
    if (launched && !options.coordinationStore) missingStore(launched.place);
    const devices =
      typeof options.strategy === "object"
        ? options.strategy.devices
        : options.accelerator === undefined && options.devices === undefined && options.executor === undefined
          ? [k.getDefaultDevice()]
          : selectDevices({
              accelerator: options.accelerator ?? "auto",
              devices: options.devices ?? "auto",
              ...(options.executor ? { executor: options.executor } : {}),
              ...(options.pjrtPlugin ? { pjrtPlugin: options.pjrtPlugin } : {}),
            });
    this.strategy = makeStrategy(options.strategy ?? "auto", devices);
    // Across processes, MPI sums the gradients of CPU executors (ONNX Runtime, XLA:CPU, whose plugins
    // have no cross-process collectives); GPUs and TPUs use XLA's own collectives through PJRT: the step
    // is one program over every process's devices, and the rest (barriers, agreements) goes through the
    // coordination store.
    const platform = this.strategy.devices[0]!.platform;
    if (platform === "cpu") this.group = joinProcessGroup(options.numNodes !== undefined ? { expected: options.numNodes } : {});
    else {
      const place = acceleratorProcessPlace(platform, options.numNodes);
      if (place && !this.strategy.global)
        throw new Error(
          `this process is rank ${place.rank} of ${place.size}, but its devices (${this.strategy.devices.map((d) => d.id).join(", ")}) ` +
            `belong to an XLA client for this process alone: give accelerator: "${platform}" (or selectDevices with it) in ` +
            `the launched process, which makes the client for all ${place.size}`,
        );
      if (place && !options.coordinationStore) missingStore(place);
      this.group = place ? joinAcceleratorGroup(place, options.coordinationStore!) : undefined;
    }
  }

  /** Replicas over all processes: each process's devices × the processes. */
  get worldReplicas(): number {
    return this.strategy.numReplicas * (this.group?.size ?? 1);
  }

  /** Rank 0 writes the run's files and owns the console; the other ranks only compute (and warn, prefixed). */
  private get isMainRank(): boolean {
    return (this.group?.rank ?? 0) === 0;
  }

  /** Where parameters, optimizer state and replica 0's results live. */
  private get device(): k.Device {
    return this.strategy.devices[0]!;
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
    for (const l of this.loggers) l.log(this.globalStep, metrics);
  }

  /** `metrics.best_metric` (else eval_loss) is recorded as the best value when `reason` is "best". */
  async saveCheckpoint(reason: string, metrics: Metrics): Promise<string> {
    const c = this.current!;
    if (reason === "best") {
      // Recorded first, so the best checkpoint's own trainer_state.json names itself.
      this.bestMetric = metrics.best_metric ?? metrics.eval_loss;
      this.bestCheckpoint = checkpointPath(this.o.outputDir, this.globalStep);
    }
    const state: TrainerStateJson = {
      global_step: this.globalStep,
      epoch: this.epoch,
      data_state: c.data(),
      seed: this.o.seed,
      run_settings: c.settings,
      log_history: c.history,
      reason,
      ...(this.bestMetric !== undefined ? { best_metric: this.bestMetric, best_model_checkpoint: this.bestCheckpoint } : {}),
    };
    if (!this.isMainRank) {
      // Rank 0 writes; every rank leaves the checkpoint only once it is complete on disk.
      await this.group!.comm.barrier({ forWrites: true });
      return checkpointPath(this.o.outputDir, this.globalStep);
    }
    const path = await saveCheckpoint(this.o.outputDir, {
      model: c.model,
      params: c.state.params,
      opt: c.state.opt,
      optimizer: c.settings.optimizer ?? "adamw",
      ...(c.state.scaler ? { scaler: c.state.scaler } : {}),
      state,
      ...(c.tokenizerDir ? { tokenizerDir: c.tokenizerDir } : {}),
    });
    await pruneCheckpoints(this.o.outputDir, this.o.keepCheckpoints, this.bestCheckpoint);
    for (const cb of this.o.callbacks) await cb.onCheckpointSaved?.(this, path);
    await this.group?.comm.barrier({ forWrites: true });
    return path;
  }

  async fit(a: FitArgs): Promise<FitResult> {
    const o = this.o;
    const rows = a.train.batchesPerEpoch;
    if (rows === 0)
      throw new Error(
        `the training data has ${a.train.numRecords} records, fewer than one batch; lower --per-replica-batch-size or add data`,
      );
    this.totalSteps = o.maxSteps ?? (o.epochs ?? 1) * rows;
    checkOptimizerSettings(a.optimizer, o.clipNorm);
    const warmup = a.optimizer.warmupSteps ?? defaultWarmup(this.totalSteps);
    if (warmup > this.totalSteps)
      this.warn(
        `warning: warmup of ${warmup} steps is longer than the run (${this.totalSteps} steps): ` +
          `the learning rate never reaches its peak of ${a.optimizer.learningRate}`,
      );
    const sched =
      (a.optimizer.schedule ?? "linear") === "linear"
        ? linearWarmupDecay({ peak: a.optimizer.learningRate, warmupSteps: warmup, totalSteps: this.totalSteps })
        : cosineDecay({ peak: a.optimizer.learningRate, warmupSteps: warmup, totalSteps: this.totalSteps });
    const optimizer = runOptimizer(o.optimizer, a.optimizer, sched);
    const masking: TracedMaskOptions | undefined = a.masking ? { ...a.masking, seed: o.seed } : undefined;
    const capacity = a.labelCapacity !== undefined ? { labelCapacity: a.labelCapacity } : {};
    // Training and evaluation differ only in the masking's seed (evaluation masks the same way every time).
    const objective = objectiveFor(a.model, { ...(masking ? { masking } : {}), ...capacity });
    const evalObjective = objectiveFor(a.model, { ...(masking ? { masking: { ...masking, seed: o.seed + 2 } } : {}), ...capacity });
    const settings: RunSettings = {
      task: objective.task,
      optimizer: optimizer.name,
      learning_rate: a.optimizer.learningRate,
      weight_decay: a.optimizer.weightDecay ?? 0,
      warmup_steps: warmup,
      schedule: a.optimizer.schedule ?? "linear",
      max_steps: this.totalSteps,
      global_batch: a.train.batchSize,
      gradient_accumulation: o.gradientAccumulation,
      clip_norm: o.clipNorm ?? 0,
      precision: o.precision,
      ...(a.masking ? { mlm_probability: a.masking.mlmProbability ?? 0.15 } : {}),
    };

    if (this.group)
      await agreeOnSettings(this.group, runSettingsDigest({ options: this.o, localReplicas: this.strategy.numReplicas }, a, settings));

    // ---- the output directory: leftovers of killed writes tidied, another run's files never mixed in ----
    // (by rank 0; the other ranks read it, for resume, once it is ready)
    if (this.isMainRank) {
      for (const line of await cleanCheckpointLeftovers(o.outputDir)) this.warn(`${o.outputDir}: ${line}`);
      const removed = await prepareOutputDir(o.outputDir, { resume: o.resume, overwrite: o.overwrite });
      if (removed.length) this.warn(`overwrite: removed ${removed.join(", ")} from ${o.outputDir}`);
      await mkdir(o.outputDir, { recursive: true });
    }
    await this.group?.comm.barrier({ forWrites: true });

    // ---- state: fresh, given, or resumed ----
    let state: TrainState;
    let dataState: DatasetState | undefined;
    const history: Metrics[] = [];
    const metricsPath = join(o.outputDir, "metrics.jsonl");
    if (o.resume) await refuseOtherRun(o.outputDir, objective.task, optimizer.name);
    const resumed = o.resume ? await loadNewestCheckpoint(o.outputDir, a.model, this.device, optimizer) : undefined;
    const resumeFrom = resumed?.path;
    if (resumed) {
      const ck = resumed;
      for (const s of ck.skipped) this.warn(`resume: skipped ${s.path}, which cannot be loaded: ${s.reason}`);
      if (ck.state.seed !== o.seed)
        throw new Error(`${resumeFrom} was trained with seed ${ck.state.seed}, not ${o.seed}: resume with --seed ${ck.state.seed}`);
      state = { params: ck.params, opt: ck.opt, ...(ck.scaler ? { scaler: ck.scaler } : {}) };
      this.globalStep = ck.state.global_step;
      this.epoch = ck.state.epoch;
      dataState = ck.state.data_state as DatasetState;
      this.bestMetric = ck.state.best_metric;
      this.bestCheckpoint = ck.state.best_model_checkpoint;
      history.push(...ck.state.log_history);
      const changed = settingsChanges(ck.state.run_settings as RunSettings | undefined, settings);
      this.warn(
        `resume: continuing from ${resumeFrom} at step ${this.globalStep}` + (changed ? `, with changed settings: ${changed}` : ""),
      );
      const dropped = this.isMainRank ? await truncateMetricsFile(metricsPath, this.globalStep) : 0;
      if (dropped) this.log(`resume: dropped ${dropped} lines past step ${this.globalStep} from ${metricsPath} (they are trained again)`);
    } else {
      if (o.resume) {
        this.warn(`resume: no checkpoint in ${o.outputDir}; starting from scratch`);
        if (this.isMainRank) await truncateMetricsFile(metricsPath, -1);
      }
      const init = k.jit((key: k.Array) => a.model.init(key), { name: "init", device: this.device });
      const params = a.params ?? init(k.randomKey(o.seed, this.device));
      state = { params, opt: k.jit((p: Params) => optimizer.init(p), { name: "optimizer_init", device: this.device })(params) };
    }
    if (this.group)
      await agreeOnSettings(
        this.group,
        { resumed_from: resumeFrom ?? null, global_step: this.globalStep },
        `every rank reads the checkpoints rank 0 writes: put outputDir on storage every process sees (one host, or a shared filesystem)`,
      );
    if (this.policy.paramDtype !== "f32") state.params = k.treeMap((p: k.Array) => p.astype(this.policy.paramDtype), state.params);
    if (this.policy.lossScaling) state.scaler ??= lossScaleInit(o.lossScale);
    else delete state.scaler;
    const globalBatch = a.train.batchSize;
    if (globalBatch % (this.worldReplicas * o.gradientAccumulation) !== 0) {
      throw new Error(
        `the global batch of ${globalBatch} does not split into ` +
          `${this.worldReplicas} replicas${this.group ? ` (${this.group.size} processes × ${this.strategy.numReplicas})` : ""} × ` +
          `${o.gradientAccumulation} micro-batches`,
      );
    }

    const K = o.stepsPerExecution;
    if (!Number.isInteger(K) || K < 1) throw new Error(`stepsPerExecution must be a positive integer, got ${K}`);
    for (const [name, every] of [
      ["evalEvery", o.evalEvery],
      ["checkpointEvery", o.checkpointEvery],
    ] as const) {
      if (every % K !== 0)
        throw new Error(
          `${name} ${every} is not a multiple of stepsPerExecution ${K}: evaluations and checkpoints happen between compiled calls`,
        );
    }
    const stepOptions = {
      objective,
      optimizer,
      computeDtype: this.policy.computeDtype,
      microBatches: o.gradientAccumulation,
      dropoutSeed: o.seed + 1,
      ...(o.clipNorm ? { clipNorm: o.clipNorm } : {}),
      ...(o.lossScale ? { lossScaling: o.lossScale } : {}),
      nonFiniteUpdate: o.onNonFinite === "skip" ? ("skip" as const) : ("apply" as const),
      ...(o.loops?.layers ? { layerLoop: o.loops.layers } : {}),
    };
    // One process, or several whose step is one program (XLA's collectives): one compiled program per
    // call. Several with MPI: gradient and update programs with MPI between.
    const crossProcess = this.group?.collectives === "mpi" ? new CrossProcessSteps(this.strategy, this.group, stepOptions) : undefined;
    const stepFn = crossProcess
      ? undefined
      : this.strategy.compile(makeMultiStep(makeTrainStep(stepOptions), o.loops?.steps ?? "unrolled"), {
          name: "train_step",
          donateArgs: [0],
        });
    const compiles = () => (crossProcess ?? stepFn!).metrics.compiles;
    const evalFn = this.strategy.compile(
      makeEvalStep({
        objective: evalObjective,
        computeDtype: this.policy.computeDtype,
        ...(o.loops?.layers ? { layerLoop: o.loops.layers } : {}),
      }),
      { name: "eval_step" },
    );

    // The state the compiled step carries between calls: on devices with their own memory, every replica
    // keeps its copy (its buffers donated to the next call); `state` is replica 0's view, for evaluation
    // inputs where devices share memory, checkpoints and the final model.
    let carried = this.strategy.replicate(state);
    state = this.strategy.first(carried);
    const iterator = a.train
      .map((batch, info): Positioned => (this.group ? processRows(batch, info, this.group) : { batch, info }))
      .iterator(dataState);
    // The data position saved in checkpoints: just past the last batch trained on (a batch read ahead
    // for the next group is not counted).
    let trainedPosition = iterator.state();
    this.current = {
      model: a.model,
      task: objective.task,
      state,
      data: () => trainedPosition,
      history,
      settings,
      ...(a.tokenizerDir ? { tokenizerDir: a.tokenizerDir } : {}),
    };
    const watch = new DivergenceWatch({
      vocabSize: a.model.config.vocab_size,
      learningRate: a.optimizer.learningRate,
      policy: o.onNonFinite,
      precision: o.precision,
      ...(o.clipNorm ? { clipNorm: o.clipNorm } : {}),
    });
    this.loggers = this.isMainRank ? [new JsonLinesLogger(metricsPath), new TensorBoardLogger(join(o.outputDir, "runs"))] : [];
    this.bar = o.progress && this.isMainRank ? new ProgressBar("train") : undefined;
    // An interrupt stops the run unfinished (no final model); a callback's stop (early stopping) ends it.
    // SIGTERM is what launchers, schedulers and preempted machines send (kiln launch forwards it to every
    // rank): it saves the same checkpoint as Ctrl+C. A second signal quits at once.
    let interrupted = false;
    // Set by the signal and never cleared: a signal that arrives while the ranks of a multi-process run
    // agree on stopping (below) is overwritten there by the agreement, and counts at the next step's.
    let signalled = false;
    const stopOnSignal = (signal: NodeJS.Signals) => {
      signalled = true;
      interrupted = true;
      this.shouldStop = true;
      this.log(`${signal === "SIGINT" ? "interrupt" : signal}: finishing this step and saving a checkpoint (signal again to quit now)`);
      for (const s of STOP_SIGNALS) process.once(s, () => process.exit(128 + osConstants.signals[s]));
    };
    for (const s of STOP_SIGNALS) process.once(s, stopOnSignal);

    const evalHistory: Metrics[] = [];
    let compileSeconds = 0,
      timedTokens = 0,
      timedSeconds = 0;
    let window: { loss: number; correct: number; count: number; n: number } = { loss: 0, correct: 0, count: 0, n: 0 };
    let warnedDropped = false;
    for (const cb of o.callbacks) await cb.onTrainStart?.(this);
    try {
      if (o.evalAtStart && a.eval && !resumeFrom) await this.runEval(evalFn, a, carried, evalHistory);
      // A group of up to K batches for one compiled call; it never spans an epoch boundary, so the
      // end-of-epoch work sees the state of exactly that epoch's end.
      let pending: { batch: Positioned; position: DatasetState } | undefined;
      while (this.globalStep < this.totalSteps && !this.shouldStop) {
        const group: Positioned[] = [];
        if (pending) {
          group.push(pending.batch);
          trainedPosition = pending.position;
          pending = undefined;
        }
        while (group.length < Math.min(K, this.totalSteps - this.globalStep)) {
          const next = await iterator.next();
          if (next.done) break;
          if (group.length > 0 && next.value.info.epoch !== group[0]!.info.epoch) {
            pending = { batch: next.value, position: iterator.state() };
            break;
          }
          group.push(next.value);
          trainedPosition = iterator.state();
        }
        if (group.length === 0) break;
        if (group[0]!.info.epoch !== this.epoch) await this.endEpoch(evalFn, a, carried, evalHistory);
        this.epoch = group[0]!.info.epoch;
        const t0 = performance.now();
        const compilesBefore = compiles();
        const out = crossProcess
          ? await crossProcess.run(
              carried,
              group.map((g) => this.groupInputs([g])),
              this.globalStep,
            )
          : stepFn!(
              carried,
              this.groupInputs(group),
              this.onEachReplica((d) => k.array(new Int32Array([this.globalStep]), { shape: [], device: d })),
            );
        carried = this.strategy.carry(out.state);
        state = this.strategy.first(carried);
        this.current.state = state;
        // One copy back per call: every step's scalars packed as [K, STEP_SCALARS] by the program.
        const scalars = (await this.strategy.keepFirst(out.scalars).data()) as Float32Array;
        const seconds = (performance.now() - t0) / 1000;
        if (compiles() > compilesBefore) {
          compileSeconds += seconds;
          this.bar?.markTrainingStart(this.globalStep + group.length);
        } else {
          timedTokens += group.reduce((n, g) => n + g.batch.shape[0] * g.batch.shape[1], 0) * (this.group?.size ?? 1);
          timedSeconds += seconds;
        }
        let stepMetrics: Metrics = {};
        group.forEach((_, i) => {
          const { loss, correct, count, lr, skipped, nonFinite, dropped } = stepScalars(scalars, i);
          this.globalStep++;
          // Throws (ending the run before anything from this state is logged or saved) when it must stop.
          const verdict = watch.step(this.globalStep, loss, nonFinite > 0, skipped > 0);
          if (verdict) this.warn(verdict);
          if (skipped) this.log(`step ${this.globalStep}: gradients overflowed in f16; the update was skipped and the loss scale halved`);
          if (dropped && !warnedDropped) {
            warnedDropped = true;
            this.warn(
              `warning: step ${this.globalStep}: ${dropped} labelled positions did not fit the MLM head's capacity ` +
                `and were left out of the loss (logged as dropped_labels; said once per run): ` +
                `the masking labelled far more tokens than its probability predicts, or labelCapacity is too small`,
            );
          }
          if (nonFinite) return;
          stepMetrics = { loss, lr, accuracy: count > 0 ? correct / count : 0, ...(dropped ? { dropped_labels: dropped } : {}) };
          history.push({
            step: this.globalStep,
            loss,
            ...(skipped ? { skipped: 1 } : {}),
            ...(dropped ? { dropped_labels: dropped } : {}),
          });
          window = { loss: window.loss + loss, correct: window.correct + correct, count: window.count + count, n: window.n + 1 };
          if (window.n > 0 && (this.globalStep % o.logEvery === 0 || this.globalStep === this.totalSteps)) {
            const tps = timedSeconds > 0 ? timedTokens / timedSeconds : undefined;
            this.logMetrics({
              loss: window.loss / window.n,
              accuracy: window.count ? window.correct / window.count : 0,
              ...(tps ? { tokens_per_s: tps } : {}),
              epoch: this.epoch,
            });
            window = { loss: 0, correct: 0, count: 0, n: 0 };
          }
        });
        const tps = timedSeconds > 0 ? timedTokens / timedSeconds : undefined;
        this.bar?.update({
          step: this.globalStep,
          totalSteps: this.totalSteps,
          loss: stepScalars(scalars, group.length - 1).loss,
          ...(tps ? { tokensPerSecond: tps } : {}),
          compileSeconds,
        });
        for (const cb of o.callbacks) await cb.onStepEnd?.(this, stepMetrics);
        if (o.evalEvery > 0 && a.eval && this.globalStep % o.evalEvery === 0) await this.runEval(evalFn, a, carried, evalHistory);
        if (o.checkpointEvery > 0 && this.globalStep % o.checkpointEvery === 0) await this.saveCheckpoint("steps", stepMetrics);
        // An interrupt (or a callback's stop) on any rank stops every rank after the same step, so that
        // all of them take the same path out (checkpoint, final model) and meet at the same collectives.
        if (this.group)
          ({ stop: this.shouldStop, interrupted } = await agreeToStop(this.group, this.shouldStop || signalled, interrupted || signalled));
      }
      const ended = watch.finish();
      if (ended) this.warn(ended);
      const finalMetrics: Metrics = {};
      const evaluatedNow = evalHistory.at(-1)?.step === this.globalStep;
      const finished = !interrupted || this.globalStep >= this.totalSteps;
      const reason = interrupted ? "interrupted" : "end";
      try {
        if (a.eval) Object.assign(finalMetrics, evaluatedNow ? evalHistory.at(-1)! : await this.runEval(evalFn, a, carried, evalHistory));
      } catch (e) {
        // The final evaluation reads data that can still fail (a storage error): the trained state is
        // saved first, so the run's work is not lost with it.
        await this.saveCheckpoint(reason, {});
        if (finished) await this.writeFinal(a, state, history, evalHistory);
        this.warn(`the final evaluation failed; the trained model was saved to ${o.outputDir} first`);
        throw e;
      }
      await this.saveCheckpoint(reason, finalMetrics);
      for (const cb of o.callbacks) await cb.onTrainEnd?.(this, finalMetrics);
      if (finished) await this.writeFinal(a, state, history, evalHistory);
      state = this.strategy.keepFirst(carried);
    } finally {
      for (const s of STOP_SIGNALS) process.off(s, stopOnSignal);
      await iterator.return();
      for (const l of this.loggers) await l.close();
      this.bar?.done({ step: this.globalStep, totalSteps: this.totalSteps, compileSeconds });
      this.bar = undefined;
    }
    for (const cb of o.callbacks) await cb.onFitEnd?.(this, o.outputDir);
    return {
      params: state.params,
      globalStep: this.globalStep,
      history,
      evalHistory,
      compileSeconds,
      tokensPerSecond: timedSeconds ? timedTokens / timedSeconds : 0,
    };
  }

  /**
   * The inputs of one compiled call: for each replica, its rows of each of the group's global batches
   * stacked as [K, rows, length], with the epoch-wide index of its first example and the epoch per step.
   */
  private groupInputs(group: readonly Positioned[]): StackedStepInputs | Record<string, PerReplica> {
    const n = this.strategy.numReplicas,
      K = group.length;
    const [rows, length] = group[0]!.batch.shape;
    const per = rows / n,
      size = per * length;
    const replica = (r: number): StackedStepInputs => {
      const dev = this.strategy.devices[r]!;
      const ids = new Int32Array(K * size),
        mask = new Int32Array(K * size);
      group.forEach((g, i) => {
        ids.set(g.batch.inputIds.subarray(r * size, (r + 1) * size), i * size);
        mask.set(g.batch.attentionMask.subarray(r * size, (r + 1) * size), i * size);
      });
      return {
        inputIds: k.array(ids, { shape: [K, per, length], device: dev }),
        attentionMask: k.array(mask, { shape: [K, per, length], device: dev }),
        exampleOffset: k.array(
          Int32Array.from(group, (g) => g.info.exampleOffset + r * per),
          { shape: [K], device: dev },
        ),
        epoch: k.array(
          Int32Array.from(group, (g) => g.info.epoch),
          { shape: [K], device: dev },
        ),
      };
    };
    if (n === 1) return replica(0);
    const parts = this.strategy.devices.map((_, r) => replica(r));
    return Object.fromEntries(
      (["inputIds", "attentionMask", "exampleOffset", "epoch"] as const).map((f) => [f, new PerReplica(parts.map((p) => p[f]))]),
    );
  }

  /** Each replica's share of a global batch (its rows, and the epoch-wide index of its first example). */
  private stepInputs(batch: TokenBatch, info: { epoch: number; exampleOffset: number }): StepInputs {
    const split = this.strategy.splitBatch(batch, info.exampleOffset);
    const epoch = this.onEachReplica((d) => k.array(new Int32Array([info.epoch]), { shape: [], device: d }));
    return { ...split, epoch } as unknown as StepInputs;
  }

  /** A value made on each replica's device (PerReplica), or on the one device. */
  private onEachReplica(make: (device: k.Device) => k.Array): k.Array | PerReplica {
    const devices = this.strategy.devices;
    return devices.length === 1 ? make(devices[0]!) : new PerReplica(devices.map(make));
  }

  private async endEpoch(evalFn: EvalFn, a: FitArgs, state: TrainState, evalHistory: Metrics[]): Promise<void> {
    const m: Metrics = {};
    if (a.eval && this.o.evalEvery === 0) Object.assign(m, await this.runEval(evalFn, a, state, evalHistory));
    for (const cb of this.o.callbacks) await cb.onEpochEnd?.(this, m);
  }

  /**
   * Loss and accuracy over the whole eval set: masked-token (same masks every time: a fixed seed), or
   * next-token with the perplexity (exp of the loss). `state` is the carried state (PerReplica leaves
   * where every replica keeps its own).
   */
  async runEval(evalFn: EvalFn, a: FitArgs, state: TrainState, evalHistory: Metrics[]): Promise<Metrics> {
    const task = this.current!.task;
    let lossSum = 0,
      correct = 0,
      count = 0;
    const group = this.group;
    for await (const batch of a.eval!.map((b, info) => (group ? processRows(b, info, group) : { batch: b, info }))) {
      const out = this.strategy.keepFirst(
        evalFn(state.params, this.stepInputs(batch.batch, { epoch: 0, exampleOffset: batch.info.exampleOffset })),
      );
      const scalars = (await out.scalars.data()) as Float32Array;
      // Each process's replicas summed in the program; the processes' sums summed here (with XLA's
      // collectives the program's sum already spans every process).
      if (group?.collectives === "mpi") await group.comm.allReduceSum(scalars);
      const [l, c, n] = scalars;
      lossSum += l!;
      correct += c!;
      count += n!;
    }
    const spec = taskSpec(task);
    const m: Metrics = spec.evalMetrics({ lossSum, correct, count });
    evalHistory.push({ step: this.globalStep, ...m });
    this.logMetrics(m);
    this.log(`step ${this.globalStep}: eval loss ${m.eval_loss!.toFixed(4)}, ${spec.evalLine(m)}`);
    for (const cb of this.o.callbacks) await cb.onEvalEnd?.(this, m);
    return m;
  }

  /** The final model directory: config.json, model.safetensors, tokenizer files, and the loss curve. */
  private async writeFinal(a: FitArgs, state: TrainState, history: Metrics[], evalHistory: Metrics[]): Promise<void> {
    if (!this.isMainRank) return void (await this.group!.comm.barrier({ forWrites: true }));
    const dir = this.o.outputDir;
    await saveModel(dir, a.model, state.params);
    if (a.tokenizerDir) await copyTokenizerFiles(a.tokenizerDir, dir, a.model.config);
    const html = lossCurveHtml("Kiln training loss", [
      { name: "train loss", color: "#1f77b4", points: history.map((h) => [h.step!, h.loss!]) },
      { name: "eval loss", color: "#d62728", points: evalHistory.map((h) => [h.step!, h.eval_loss!]) },
    ]);
    await writeFileAtomic(join(dir, "loss_curve.html"), html);
    await this.group?.comm.barrier({ forWrites: true });
  }
}

type EvalFn = (...args: any[]) => any;

function missingStore(place: { rank: number; size: number; coordinator: { host: string; port: number } }): never {
  throw new Error(
    `this process is rank ${place.rank} of ${place.size}: give the Trainer coordinationStore, the run's coordination store ` +
      `(await StoreClient.connect({ host: "${place.coordinator.host}", port: ${place.coordinator.port} }) from kiln/launch, ` +
      `KILN_COORDINATOR's address)`,
  );
}

/** The settings of a run that a resumed run compares against (saved in trainer_state.json). */
export interface RunSettings {
  /** What the run trains on (absent in checkpoints from before causal LMs: "mlm"). */
  task?: TrainingTask;
  /** The optimizer's name (absent in checkpoints from before other optimizers: "adamw"). */
  optimizer?: string;
  learning_rate: number;
  weight_decay: number;
  warmup_steps: number;
  schedule: string;
  max_steps: number;
  global_batch: number;
  gradient_accumulation: number;
  clip_norm: number;
  precision: string;
  /** Masked LMs only. */
  mlm_probability?: number;
}

/** "learning_rate 0.0007 → 0.001, max_steps 800 → 1000", or "" when nothing changed (or nothing was recorded). */
function settingsChanges(before: RunSettings | undefined, now: RunSettings): string {
  if (!before) return "";
  return (Object.keys(now) as (keyof RunSettings)[])
    .filter((key) => before[key] !== undefined && before[key] !== now[key])
    .map((key) => `${key} ${before[key]} → ${now[key]}`)
    .join(", ");
}

/**
 * Refuses to resume a run of the other task (its checkpoints hold another kind of model) or of another
 * optimizer (another state): said before any checkpoint is loaded, rather than as names that do not match.
 */
async function refuseOtherRun(outputDir: string, task: TrainingTask, optimizer: string): Promise<void> {
  const newest = (await listCheckpoints(outputDir)).at(-1);
  if (!newest) return;
  let state: TrainerStateJson;
  try {
    state = JSON.parse(await readFile(join(newest.path, "trainer_state.json"), "utf8"));
  } catch {
    return; // a damaged checkpoint: loadNewestCheckpoint says why and falls back past it
  }
  const before = (state.run_settings as RunSettings | undefined)?.task ?? "mlm";
  if (before !== task)
    throw new Error(
      `${newest.path} is a ${before} run, but this model trains as ${task}: ` +
        `resume it with the model it was trained with, or train into another output directory`,
    );
  const trainedWith = (state.run_settings as RunSettings | undefined)?.optimizer ?? "adamw";
  if (trainedWith !== optimizer)
    throw new Error(
      `${newest.path} was trained with the ${trainedWith} optimizer, but this run's optimizer is ${optimizer}: ` +
        `resume it with optimizer "${trainedWith}", or train into another output directory`,
    );
}

/**
 * TrainerOptions.optimizer as an Optimizer: a built-in one by name, with the run's schedule and
 * FitArgs.optimizer's settings; or the object as given, which takes none of those settings.
 */
function runOptimizer(choice: OptimizerName | Optimizer<any>, s: OptimizerSettings, schedule: Schedule): Optimizer<any> {
  if (typeof choice === "string") {
    const { learningRate: _peak, warmupSteps: _warmup, schedule: _shape, ...rest } = s;
    return createOptimizer(choice, { ...rest, weightDecay: s.weightDecay ?? 0, learningRate: schedule });
  }
  const given = (["weightDecay", "warmupSteps", "schedule", "beta1", "beta2", "eps"] as const).filter((key) => s[key] !== undefined);
  if (given.length)
    throw new Error(
      `FitArgs.optimizer's ${given.join(", ")} configure the built-in optimizers, but TrainerOptions.optimizer is ` +
        `an optimizer object (${choice.name}) with settings of its own: give them to it and leave them out of FitArgs.optimizer`,
    );
  return choice;
}

/** Refuses optimizer settings that would train backwards or not at all (a negative rate or clip norm). */
function checkOptimizerSettings(s: OptimizerSettings, clipNorm: number | undefined): void {
  const bad = (what: string, value: number, rule: string) => new Error(`${what} must be ${rule}, got ${value}`);
  if (!(s.learningRate >= 0) || !Number.isFinite(s.learningRate)) throw bad("the learning rate", s.learningRate, "a finite number ≥ 0");
  if (s.weightDecay !== undefined && !(s.weightDecay >= 0 && Number.isFinite(s.weightDecay)))
    throw bad("the weight decay", s.weightDecay, "a finite number ≥ 0");
  if (s.warmupSteps !== undefined && !(Number.isInteger(s.warmupSteps) && s.warmupSteps >= 0))
    throw bad("the warmup", s.warmupSteps, "a whole number of steps ≥ 0");
  // A negative norm would flip every gradient (min(-1/‖g‖, 1) < 0): gradient ascent.
  if (clipNorm !== undefined && !(clipNorm > 0 && Number.isFinite(clipNorm)))
    throw bad("the gradient clipping norm", clipNorm, "a finite number > 0");
}
