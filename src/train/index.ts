// The training layer's public API: the Trainer, its callbacks and loggers, checkpoints, and the
// compiled MLM step it runs (for custom loops).
export { Trainer, type TrainerOptions, type OptimizerSettings, type FitArgs, type FitResult, type RunSettings } from "./trainer.js";
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
export { JsonLinesLogger, type MetricsLogger } from "./loggers.js";
export { TensorBoardLogger } from "./tensorboard.js";
export { TrainingDivergedError } from "./divergence.js";
export { OutputDirInUseError } from "./output-dir.js";
export {
  makeTrainStep,
  makeEvalStep,
  makeMultiStep,
  type MlmStepOptions,
  type StepInputs,
  type StepMetrics,
  type TrainState,
} from "./mlm-step.js";
