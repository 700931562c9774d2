export { AdamW, appliesWeightDecay, type AdamWOptions, type AdamWState } from "./adamw.js";
export { Adafactor, type AdafactorOptions, type AdafactorState } from "./adafactor.js";
export { Lion, type LionOptions, type LionState } from "./lion.js";
export { applyOptimizer, type Optimizer, type OptimizerState, type OptimizerUpdate } from "./optimizer.js";
export { createOptimizer, OPTIMIZER_NAMES, type OptimizerName, type OptimizerByNameSettings } from "./by-name.js";
export {
  constantSchedule,
  linearWarmupDecay,
  cosineDecay,
  warmupStableDecay,
  defaultWarmup,
  type Schedule,
  type ScheduleShape,
  type WarmupDecayOptions,
} from "./schedules.js";
export { clipByGlobalNorm, globalNorm } from "./clip.js";
export {
  precisionPolicy,
  lossScaleInit,
  PRECISIONS,
  type PrecisionName,
  type PrecisionPolicy,
  type LossScaleOptions,
  type LossScaleState,
} from "./precision.js";
