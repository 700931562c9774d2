// The training layer's public API: the Trainer, its callbacks and loggers, checkpoints, and the
// compiled step it runs with its objectives, masked and causal LM (for custom loops).
export {
  Trainer,
  type TrainerOptions,
  type OptimizerSettings,
  type FitArgs,
  type MaskingSettings,
  type FitResult,
  type RunSettings,
  type StopRequest,
  type StoppedRun,
} from "./trainer.js";
export {
  ModelCheckpoint,
  EarlyStopping,
  LearningRateMonitor,
  type Callback,
  type CheckpointOptions,
  type EarlyStoppingOptions,
  type Metrics,
  type TrainerView,
} from "./callbacks.js";
export {
  saveCheckpoint,
  loadCheckpoint,
  loadNewestCheckpoint,
  listCheckpoints,
  checkpointPath,
  type LoadedCheckpoint,
  type ResumePoint,
  type TrainerStateJson,
} from "./checkpoint.js";
export { JsonLinesLogger, type Logger, type MetricsLogger } from "./loggers.js";
export { TensorBoardLogger } from "./tensorboard.js";
export { TrainingDivergedError } from "./divergence.js";
export { OutputDirInUseError } from "./output-dir.js";
export { RunDirLockedError } from "./run-lock.js";
export { chooseCpuExecution, type CpuExecutionOptions, type CpuExecutionChoice } from "./choose-execution.js";
export {
  makeTrainStep,
  makeEvalStep,
  makeMultiStep,
  type TrainStepOptions,
  type StepInputs,
  type StepMetrics,
  type TrainState,
} from "./train-step.js";
export { maskedLmObjective, type MaskedLmObjectiveOptions } from "./objectives/mlm.js";
export { causalLmObjective, nextTokenLoss, nextTokenTargets } from "./objectives/causal-lm.js";
export type { TrainingObjective, TrainingTask, ObjectiveOutputs } from "./objectives/objective.js";
