// The engine, the executors (registered on import; the first, cpu:0 on ONNX Runtime, is the default
// device) and each layer's main names in one module, for the CLI and the tests. The package's entries,
// named one by one, are in src/entry/: "@kiln-ml/kiln" (src/entry/index.ts), "@kiln-ml/kiln/core", and
// one per layer.
export * from "./executors.js";
export * from "./core/index.js";

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
} from "./data/index.js";
// text: the Unigram tokenizer
export {
  trainUnigram,
  loadTokenizer,
  saveTokenizer,
  readTextLines,
  UnigramTokenizer,
  type Tokenizer,
  type UnigramTrainOptions,
} from "./text/index.js";
// models: RoBERTa/BERT masked LMs, Llama/GPT-2 causal LMs, and Hugging Face model directories
export {
  RobertaForMaskedLM,
  BertForMaskedLM,
  LlamaForCausalLM,
  GPT2LMHeadModel,
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
} from "./models/index.js";
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
} from "./optim/index.js";
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
} from "./distribute/index.js";
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
} from "./train/index.js";
// pipelines and export
export { FillMaskPipeline, TextGenerationPipeline, type FillMaskResult, type TextGeneration } from "./pipelines/index.js";
export { exportModel, type ExportOptions } from "./export/index.js";
