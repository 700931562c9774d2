// Inference pipelines over trained models: fill-mask, and text generation with a KV cache.
export { FillMaskPipeline, type FillMaskOptions, type FillMaskResult, type FillMaskSources, type FillMaskTokenizer } from "./fill-mask.js";
export {
  TextGenerationPipeline,
  type TextGeneration,
  type TextGenerationOptions,
  type TextGenerationSources,
  type GenerationTokenizer,
  type TokenEvent,
} from "./text-generation.js";
export { Generator, type GenerateOptions, type GeneratorOptions, type TokenGeneration, type FinishReason } from "./generation/generator.js";
export { GenerateInputError, type ShapePlan } from "./generation/buckets.js";
export { warpLogits, type SamplingOptions } from "./generation/sampling.js";
export type { CompileRecord, DecodeLoop } from "./generation/programs.js";
export {
  TextClassificationPipeline,
  type ClassificationInput,
  type ClassificationResult,
  type ClassificationTokenizer,
  type TextClassificationOptions,
  type TextPair,
} from "./text-classification.js";
export {
  pipeline,
  PIPELINE_TASKS,
  type PipelineTask,
  type PipelineOptions,
  type FillMask,
  type TextGenerator,
  type TextClassifier,
} from "./pipeline.js";
