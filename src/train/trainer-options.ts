// The Trainer's settings and what fit() takes and returns (the Trainer's public types, in one place that
// its parts import without importing the Trainer).
import type { TokenBatch } from "../data/batch.js";
import type { TFRecordDataset } from "../data/pipeline/dataset.js";
import type { ClassificationDataset } from "../data/pipeline/classification-dataset.js";
import type { SequenceClassifier } from "../models/classification/model.js";
import type { MaskedLanguageModel } from "../models/masked-lm.js";
import type { CausalLanguageModel } from "../models/causal-lm.js";
import type { Params } from "../models/language-model.js";
import type { OptimizerName } from "../optim/by-name.js";
import type { Optimizer } from "../optim/optimizer.js";
import type { ScheduleShape } from "../optim/schedules.js";
import type { TracedMaskOptions } from "../data/mlm/mask-traced.js";
import type { Callback, Metrics } from "./callbacks.js";
import type { Logger } from "./loggers.js";
import type { LayerLoop } from "../models/transformer-encoder.js";
import type { Accelerator, CpuExecutorName, DevicesSpec } from "../distribute/devices.js";
import type { Strategy, StrategyName } from "../distribute/strategy.js";
import type { LossScaleOptions, PrecisionName } from "../optim/precision.js";
import type { KeyValueStore } from "../distribute/store-group-comm.js";
import type { TrainingTask } from "./objectives/objective.js";

/** Options of Trainer: the output directory, steps and epochs, evaluation, checkpoints, precision, devices, loggers. */
export interface TrainerOptions {
  outputDir: string;
  /** Stop after this many optimizer steps (default: epochs × steps per epoch; none when only maxTime is given). */
  maxSteps?: number;
  /**
   * A training time budget (Lightning's max_time): seconds, or a duration ("90s", "5m", "1h30m",
   * "DD:HH:MM:SS"). The built-in optimizer's schedule follows the fraction of the budget spent instead of
   * the steps (warmup and decay as fractions of the time: OptimizerSettings.warmupFraction), and the run
   * stops after the last step that leaves its final evaluation room within the budget (as long as the
   * last evaluation took), then evaluates and saves. The budget counts the fit loop (compiles, steps, and
   * the evaluations and checkpoints between them) and the final evaluation; the save comes after it.
   * With maxSteps or epochs too, whichever ends first ends the run. The steps a budget reaches depend on
   * the machine and its load, so a budgeted run is not bit-reproducible across machines or runs; a
   * checkpoint records the training time spent, so a resumed run continues the same schedule from where
   * it was. Not in multi-process runs. Without maxSteps or epochs, the Trainer's totalSteps is Infinity.
   */
  maxTime?: number | string;
  /** Where maxTime's clock reads seconds (default: the monotonic clock); a test or simulation gives its own. */
  clock?: () => number;
  epochs?: number;
  /** Evaluate every N steps (0: only at the end of each epoch and of training). */
  evalEvery?: number;
  /**
   * Evaluate N times, evenly over the run, the last at its end: at each N-th of its steps, or under maxTime
   * of its budget (where the steps a run reaches are not known ahead, so evalEvery may never come due).
   * Instead of evalEvery.
   */
  evaluations?: number;
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
  /**
   * Where the notices of device selection go (accelerator "auto" falling back to the CPU); default
   * stderr. A command passes its own to say them only when asked.
   */
  notice?: (line: string) => void;
  /** "auto" (data parallel over several devices), "one-device", "data-parallel", or a Strategy. */
  strategy?: StrategyName | Strategy;
  /** Print progress (default true). */
  progress?: boolean;
  /**
   * Where metrics go (on the main process only): default a JSON-lines file (`outputDir/metrics.jsonl`)
   * and TensorBoard event files (`outputDir/runs/`). An empty list logs nothing.
   */
  loggers?: Logger[];
  /**
   * Aborting it stops the run as `requestStop` does: the step in flight finishes, a checkpoint is written,
   * and fit() returns with `stopped` (a command's signal handler, a deadline, a scheduler's notice).
   */
  signal?: AbortSignal;
}

/** Settings of the built-in optimizer: learning rate, weight decay, warmup, schedule, and its moments' constants. */
export interface OptimizerSettings {
  learningRate: number;
  weightDecay?: number;
  /** Warmup steps (default: a twentieth of the total, as the reference). */
  warmupSteps?: number;
  /**
   * Warmup as a fraction (0 to 1) of the run instead: of its steps, or under TrainerOptions.maxTime of its
   * time budget (default there 0.05, a twentieth).
   */
  warmupFraction?: number;
  /**
   * The rate after the warmup: "linear" (default) or "cosine" decay to 0 at the end, or
   * "warmup_stable_decay" (held at learningRate, then linear decay to 0 over the last decayFraction).
   */
  schedule?: ScheduleShape;
  /**
   * warmup_stable_decay only: the share of the run (of its steps, or of its time budget) at its end over
   * which the rate falls to 0 (default 0.2).
   */
  decayFraction?: number;
  /** AdamW's β1 (default 0.9); Lion's b1 (0.9); Adafactor: a first moment with this decay (default none). */
  beta1?: number;
  /** AdamW's β2 (default 0.999); Lion's b2 (0.99); Adafactor has none. */
  beta2?: number;
  /** AdamW's ε (default 1e-8); Adafactor and Lion have none. */
  eps?: number;
}

/** How a masked LM's training corrupts its tokens, and how its evaluation selects the tokens it scores. */
export interface MaskingSettings extends Omit<TracedMaskOptions, "seed"> {
  /**
   * Share of tokens the evaluation selects (default: mlmProbability). Training at a higher rate than 15%
   * gives more labels per step, which pays in short pretraining (Wettig et al., "Should You Mask 15% in
   * Masked Language Modeling?"); evaluating at 15% keeps eval_accuracy comparable with BERT's convention.
   */
  evalMlmProbability?: number;
}

/** What Trainer.fit trains: the model (and starting parameters), the optimizer, the data, the masking. */
export interface FitArgs {
  /**
   * The model, which decides the objective: a masked LM (RoBERTa, BERT) trains on masked tokens and
   * needs `masking`; a causal LM (Llama, GPT-2) trains on next-token prediction (the shift is done in
   * the compiled step) and takes no masking. Both read the same `kiln data prepare` shards. A sequence
   * classifier (createSequenceClassifier, *ForSequenceClassification) trains on labelled examples with
   * cross-entropy over its classes.
   */
  model: MaskedLanguageModel | CausalLanguageModel | SequenceClassifier;
  /** Start from these parameters (default: a fresh init from the seed). */
  params?: Params;
  optimizer: OptimizerSettings;
  /**
   * The training data: token shards (openDataset) for a masked or causal LM; labelled records
   * (openClassificationDataset, batches grouped by length) for a sequence classifier.
   */
  train: TFRecordDataset<TokenBatch> | ClassificationDataset;
  eval?: TFRecordDataset<TokenBatch> | ClassificationDataset;
  /**
   * Sequence classifiers only: one loss weight per class, in class id order (PyTorch's
   * CrossEntropyLoss(weight=…): the loss is Σ w_y·nll / Σ w_y over the labelled examples).
   */
  classWeights?: number[];
  /** The masking of a masked LM (the seed is the Trainer's); a causal LM refuses it. */
  masking?: MaskingSettings;
  /**
   * Masked LMs only: labelled positions per micro-batch the vocabulary head has room for (default: 8 standard deviations
   * above the expected count, which a labelling exceeds with p < 1e-15). Any beyond it are left out of
   * the loss; the run warns once and logs `dropped_labels` on the steps where that happened.
   */
  labelCapacity?: number;
  /** Copied into every checkpoint and the final model directory. */
  tokenizerDir?: string;
  /**
   * The task to train (train/tasks/: "mlm", "causal-lm", "sequence-classification", …). Default: the
   * first task that takes the model. Name it where more than one task trains the same kind of model.
   */
  task?: TrainingTask;
}

/** What Trainer.fit returns: the trained parameters, the step reached, the metrics, and how the run stopped. */
export interface FitResult {
  params: Params;
  globalStep: number;
  history: Metrics[];
  evalHistory: Metrics[];
  compileSeconds: number;
  tokensPerSecond: number;
  /**
   * Training seconds by the run's clock, those of the runs it resumed included: what maxTime counts (the
   * fit loop's time; the final evaluation and save are not in it).
   */
  trainSeconds: number;
  /** Present when the run was stopped by a request (requestStop, `signal`) before its last step. */
  stopped?: StoppedRun;
  /** The last evaluation's report for the end of the run, where the task has one (a classifier's confusion matrix, as lines). */
  evalReport?: string[];
  /** The same for programs, as JSON-ready values (a classifier's `labels` and `confusion_matrix` [true][predicted]). */
  evalDetails?: Record<string, unknown>;
}

/** Why a run is asked to stop early (a signal's name, "deadline", …), for the log and the result. */
export interface StopRequest {
  reason: string;
}

/** How a run that was asked to stop ended: the step it stopped after and the checkpoint written there. */
export interface StoppedRun {
  reason: string;
  step: number;
  checkpoint: string;
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
  /** 0 when only a time budget ends the run. */
  max_steps: number;
  /** The time budget in seconds (TrainerOptions.maxTime), when there is one. */
  max_time?: number;
  /** Warmup as a fraction of the run (of the time budget under max_time; warmup_steps is then 0). */
  warmup_fraction?: number;
  /** Schedule "warmup_stable_decay" only: the share of the run at its end that decays. */
  decay_fraction?: number;
  global_batch: number;
  gradient_accumulation: number;
  clip_norm: number;
  precision: string;
  /** Masked LMs only. */
  mlm_probability?: number;
  /** Masked LMs whose evaluation masks at its own rate (masking.evalMlmProbability) only. */
  eval_mlm_probability?: number;
  /** Sequence classifiers with class weights only: the weights in class id order, comma-separated. */
  class_weights?: string;
}
