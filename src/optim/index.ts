export { AdamW, appliesWeightDecay, type AdamWOptions, type AdamWState } from "./adamw.js";
export { constantSchedule, linearWarmupDecay, cosineDecay, defaultWarmup, type Schedule, type WarmupDecayOptions } from "./schedules.js";
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
