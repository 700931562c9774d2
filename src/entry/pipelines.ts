// The package's "@kiln-ml/kiln/pipelines" entry: src/pipelines's public API, named one by one (the layer's
// internals stay out), with the CPU and reference executors registered.
import "../executors.js";

export {
  pipeline,
  PIPELINE_TASKS,
  FillMaskPipeline,
  TextClassificationPipeline,
  TextGenerationPipeline,
  Generator,
  GenerateInputError,
  warpLogits,
  type PipelineTask,
  type PipelineOptions,
  type FillMask,
  type TextGenerator,
  type TextClassifier,
  type ClassificationResult,
  type TextClassificationOptions,
  type TextPair,
  type ClassificationInput,
  type FillMaskResult,
  type FillMaskOptions,
  type FillMaskTokenizer,
  type TextGeneration,
  type TextGenerationOptions,
  type TokenEvent,
  type GenerateOptions,
  type GeneratorOptions,
  type TokenGeneration,
  type SamplingOptions,
} from "../pipelines/index.js";
