// The package's root entry ("@kiln-ml/kiln"): the names a user trains and runs models with: models,
// Trainer, pipelines, data, tokenizers, optimizers, devices and export, named one by one. The engine
// (Arrays, jit, autodiff, pytrees, PRNG, executors) is "@kiln-ml/kiln/core", and each layer's whole API is
// its own entry (src/entry/). Importing it registers the CPU (ONNX Runtime, the default device cpu:0)
// and reference executors.
import "../executors.js";

// the error a function throws for a wrong setting: which option, its value, why, and what to do
export { OptionError } from "../core/option-error.js";

// models: RoBERTa/BERT masked LMs, Llama/GPT-2 causal LMs, and Hugging Face model directories
export {
  RobertaForMaskedLM,
  BertForMaskedLM,
  LlamaForCausalLM,
  GPT2LMHeadModel,
  BertForSequenceClassification,
  RobertaForSequenceClassification,
  LlamaForSequenceClassification,
  GPT2ForSequenceClassification,
  createMaskedLM,
  createCausalLM,
  createModel,
  presetConfig,
  presetNames,
  readConfig,
  readModelConfig,
  validateConfig,
  loadModel,
  saveModel,
  type MlmConfig,
  type LlamaConfig,
  type Gpt2Config,
  type CausalConfig,
  type MaskedLanguageModel,
  type CausalLanguageModel,
  type Params,
  type PretrainedModel,
  type PretrainedCausalModel,
  type LoadedModel,
} from "../models/index.js";
// train
export {
  Trainer,
  ModelCheckpoint,
  EarlyStopping,
  LearningRateMonitor,
  type TrainerOptions,
  type FitArgs,
  type FitResult,
  type Callback,
} from "../train/index.js";
// pipelines: pipeline(task, dir) and the classes under it
export {
  pipeline,
  FillMaskPipeline,
  TextClassificationPipeline,
  TextGenerationPipeline,
  type FillMask,
  type TextGenerator,
  type TextClassifier,
  type ClassificationResult,
  type TextClassificationOptions,
  type PipelineTask,
  type FillMaskResult,
  type FillMaskOptions,
  type TextGeneration,
  type TextGenerationOptions,
} from "../pipelines/index.js";
// data: TFRecord shards and the streaming input pipeline
export {
  openDataset,
  TFRecordDataset,
  prepareDataset,
  TFRecordWriter,
  readRecords,
  writeRecords,
  encodeExample,
  decodeExample,
  type DatasetOptions,
  type PrepareOptions,
  type PrepareResult,
  type TokenBatch,
} from "../data/index.js";
// text: the Unigram tokenizer
export {
  trainUnigram,
  loadTokenizer,
  saveTokenizer,
  readTextLines,
  UnigramTokenizer,
  type Tokenizer,
  type UnigramTrainOptions,
} from "../text/index.js";
// optim
export {
  AdamW,
  Adafactor,
  Lion,
  linearWarmupDecay,
  cosineDecay,
  warmupStableDecay,
  clipByGlobalNorm,
  type Optimizer,
  type Schedule,
} from "../optim/index.js";
// distribute: devices and strategies
export {
  selectDevices,
  makeStrategy,
  OneDevice,
  DataParallel,
  PerReplica,
  allReduceSum,
  allReduceMean,
  type Strategy,
  type Accelerator,
} from "../distribute/index.js";
// export
export { exportModel, type ExportOptions } from "../export/index.js";
