// The package's "@kiln-ml/kiln/optim" entry: src/optim's public API, named one by one (the layer's
// internals stay out), with the CPU and reference executors registered.
import "../executors.js";

export {
  AdamW,
  Adafactor,
  Lion,
  createOptimizer,
  OPTIMIZER_NAMES,
  applyOptimizer,
  appliesWeightDecay,
  constantSchedule,
  linearWarmupDecay,
  cosineDecay,
  clipByGlobalNorm,
  globalNorm,
  precisionPolicy,
  PRECISIONS,
  type Optimizer,
  type OptimizerState,
  type OptimizerUpdate,
  type OptimizerName,
  type AdamWOptions,
  type AdamWState,
  type AdafactorOptions,
  type AdafactorState,
  type LionOptions,
  type LionState,
  type Schedule,
  type PrecisionName,
  type PrecisionPolicy,
} from "../optim/index.js";
