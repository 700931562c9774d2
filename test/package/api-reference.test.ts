// docs/api/ is generated (scripts/api-reference.mjs, `npm run docs:api`) from the built .d.ts files and
// checked in: regenerating it must give the same pages, so it cannot fall behind the package's surface.
// Every exported name also needs a doc comment summary, its line in the reference; the few without one
// are listed below, and a listed name that gains a summary (or stops being exported) must leave the list.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "../helpers/repo-paths.js";

const root = repoRoot();

/**
 * Exported names that have no summary yet (in some entry that exports them): they were written before the
 * reference existed. The list only shrinks.
 */
// prettier-ignore
const UNDOCUMENTED = new Set([
  "abs", "Accelerator", "ACTIVATIONS", "Adafactor", "AdafactorOptions", "AdamW", "AdamWOptions", "add", "AddedToken", "allDevices",
  "allocHost", "Array", "ArrayOptions", "astype", "AttentionDropout", "bf16BitsToF32", "bind", "bitAnd", "bitNot", "bitOr", "bitXor",
  "Callback", "CausalForwardOptions", "CausalLanguageModel", "causalLmObjective", "CausalTokenizerIds", "CheckpointOptions",
  "checkpointPath", "compare", "CompareDirection", "CompileLog", "CompileOptions", "CompileTarget", "Compression", "concat", "Const",
  "constantSchedule", "conv1dInit", "cos", "CPU_EXECUTORS", "createBert", "createCausalLM", "createGpt2", "createLlama",
  "createMaskedLM", "createRoberta", "CrossEntropyOptions", "cumsum", "DataParallel", "DatasetIterator", "DatasetOptions",
  "DecodeOptions", "DEFAULT_ROLES", "DEFAULT_SPECIAL_TOKENS", "denseInit", "DenseParams", "Device", "DeviceSelection", "DevicesSpec",
  "discoverPjrtPlugin", "DiscoveryOptions", "DistributedOptions", "div", "DropoutSites", "DType", "dtypeOfHost", "DTYPES",
  "EarlyStopping", "EarlyStoppingOptions", "embed", "embeddingInit", "EmbeddingParams", "EncodeOptions", "Encoder", "Eqn", "erf",
  "Executable", "Executor", "exp", "expandDims", "EXPORT_FORMATS", "EXPORT_PRECISIONS", "exportModel", "ExportOptions", "ExportResult",
  "f16BitsToF32", "Feature", "FillMaskOptions", "FillMaskPipeline", "FillMaskResult", "FinishReason", "FitArgs", "FitResult",
  "FixedFeatureSpec", "fmtAVal", "fmtShape", "ForwardOptions", "full", "FunctionMetrics", "GenerateOptions", "Generator",
  "GeneratorOptions", "getDefaultDevice", "globalNorm", "Gpt2Config", "GradOptions", "HostArray", "isCausalConfig", "isFinite",
  "isFloat", "isGcsPath", "isInt", "itemSize", "jit", "JitOptions", "Jitted", "JoinRunError", "LanguageModel", "LaunchOptions",
  "layerNormInit", "Lion", "LionOptions", "LionState", "LlamaConfig", "LoadedCheckpoint", "LoadModelOptions", "LoadPretrainedOptions",
  "log", "logistic", "logSoftmax", "lossScaleInit", "LossScaleOptions", "LoweredModule", "LowerOptions", "lowerToStableHlo",
  "MaskedBatch", "MaskedLanguageModel", "maskedLmObjective", "MaskedLmObjectiveOptions", "MaskOptions", "max", "maximum", "mean",
  "Metrics", "metrics", "MetricsLogger", "MetricsSnapshot", "min", "minimum", "MlmConfig", "MlmOutputs", "ModelSpec", "ModelType", "mul",
  "neg", "normalInit", "normAxes", "NormParams", "ObjectiveOutputs", "OneDevice", "ones", "onesInit", "onesLike", "Optimizer",
  "OPTIMIZER_NAMES", "OptimizerByNameSettings", "OptimizerName", "OptimizerSettings", "OrtExecutor", "OrtExecutorOptions", "Params",
  "PerReplica", "PjrtError", "PjrtPluginFound", "PjrtPluginNotFound", "Platform", "POSITION_INITS", "pow", "PrecisionName",
  "PrecisionPolicy", "precisionPolicy", "PRECISIONS", "prepareDataset", "PrepareManifest", "PrepareOptions", "PrepareResult",
  "PretrainedCausalModel", "PretrainedModel", "Prim", "ProcessEnv", "ProcessEnvError", "ProcessEnvSource", "promoteTypes", "PyTree",
  "readConfig", "ReadRange", "ReadTextOptions", "RecordReader", "RecordReaderOptions", "RefExecutor", "refExecutor",
  "registeredExecutors", "ReplicatedOptions", "resetMetrics", "ResumePoint", "RotaryAngles", "rsqrt", "SameSettingsOptions",
  "SamplingOptions", "saveModel", "SaveTokenizerOptions", "ScanOptions", "Schedule", "SelfAttentionParams", "setDefaultDevice", "Shape",
  "SHAPE_RULES", "ShapePlan", "shapesEqual", "ShardCheck", "shardFileName", "shiftLeft", "shiftRightLogical", "sin", "sizeOf",
  "SkippedPlace", "SkippedRecords", "softmax", "SplitSummary", "sqrt", "square", "squeeze", "stack", "StepMetrics", "Storage",
  "storageFor", "StoreClient", "StoreClientOptions", "StoreServer", "StoreServerOptions", "Strategy", "StrategyName", "stridesOf", "sub",
  "sum", "SuperviseOptions", "tanh", "TensorBoardLogger", "TextGeneration", "TextGenerationOptions", "TextGenerationPipeline",
  "TFRecordDataset", "TokenBatch", "TokenGeneration", "Tokenizer", "TokenizerIds", "TracedMaskOptions", "Trainer", "TrainerOptions",
  "TrainerStateJson", "TrainerView", "TrainingDivergedError", "TrainingObjective", "TrainProgress", "TrainState", "TrainStepOptions",
  "UnigramTokenizer", "UnigramTrainOptions", "validateGpt2Config", "validateLlamaConfig", "Var", "VJP_RULES", "VocabularyDifference",
  "WarmupDecayOptions", "XlaBuffer", "XlaClientOptions", "XlaExecutable", "XlaExecutor", "XlaExecutorOptions", "zeros", "zerosInit",
  "zerosLike",
]);

interface EntryReport {
  entry: string;
  names: string[];
  missing: string[];
}

test("docs/api matches a fresh generation, and every exported name has a summary", { timeout: 180_000 }, async () => {
  const script = pathToFileURL(join(root, "scripts", "api-reference.mjs")).href;
  const { generateApiReference } = (await import(script)) as { generateApiReference(outDir: string): Promise<EntryReport[]> };
  const out = mkdtempSync(join(tmpdir(), "kiln-api-reference-"));
  try {
    const report = await generateApiReference(out);
    const checkedIn = join(root, "docs", "api");
    const fresh = readdirSync(out).sort();
    assert.deepEqual(readdirSync(checkedIn).sort(), fresh, "docs/api/ has other pages than a fresh generation: run `npm run docs:api`");
    const stale = fresh.filter((page) => readFileSync(join(out, page), "utf8") !== readFileSync(join(checkedIn, page), "utf8"));
    assert.deepEqual(stale, [], `docs/api/ is out of date (${stale.join(", ")}): run \`npm run docs:api\` and commit the pages`);

    assert.ok(report.length > 1 && report.every((r) => r.names.length > 0), "every package entry exports names");
    const unlisted = report.flatMap((r) => r.missing.filter((name) => !UNDOCUMENTED.has(name)).map((name) => `${r.entry}: ${name}`));
    assert.deepEqual(unlisted, [], "exported names without a doc comment summary: give each a one-line /** … */");
    const missingSomewhere = new Set(report.flatMap((r) => r.missing));
    const done = [...UNDOCUMENTED].filter((name) => !missingSomewhere.has(name));
    assert.deepEqual(done, [], "these names have a summary now (or are no longer exported): remove them from UNDOCUMENTED");
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
