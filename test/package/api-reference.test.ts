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
  "ACTIVATIONS", "AdafactorOptions", "AdamWOptions", "AddedToken", "AttentionDropout", "CausalTokenizerIds", "CompileTarget",
  "Compression", "constantSchedule", "conv1dInit", "CPU_EXECUTORS", "DatasetIterator", "DecodeOptions", "DEFAULT_ROLES",
  "DEFAULT_SPECIAL_TOKENS", "denseInit", "DenseParams", "DeviceSelection", "DevicesSpec", "discoverPjrtPlugin", "DiscoveryOptions",
  "DistributedOptions", "DropoutSites", "embed", "embeddingInit", "EmbeddingParams", "EncodeOptions", "Encoder", "EXPORT_FORMATS",
  "EXPORT_PRECISIONS", "ExportResult", "Feature", "FixedFeatureSpec", "globalNorm", "isGcsPath", "JoinRunError", "LaunchOptions",
  "layerNormInit", "LionOptions", "LionState", "LoadPretrainedOptions", "lossScaleInit", "LossScaleOptions", "LoweredModule",
  "LowerOptions", "lowerToStableHlo", "MaskedBatch", "MaskOptions", "normalInit", "NormParams", "onesInit", "OPTIMIZER_NAMES",
  "OptimizerByNameSettings", "OptimizerName", "PjrtError", "PjrtPluginFound", "PjrtPluginNotFound", "PrecisionName", "PrecisionPolicy",
  "precisionPolicy", "PRECISIONS", "PrepareManifest", "ProcessEnv", "ProcessEnvError", "ProcessEnvSource", "ReadRange",
  "ReadTextOptions", "RecordReader", "RecordReaderOptions", "ReplicatedOptions", "RotaryAngles", "SameSettingsOptions",
  "SaveTokenizerOptions", "SelfAttentionParams", "ShardCheck", "shardFileName", "SkippedPlace", "SkippedRecords", "SplitSummary",
  "Storage", "storageFor", "StoreClient", "StoreClientOptions", "StoreServer", "StoreServerOptions", "StrategyName", "SuperviseOptions",
  "TracedMaskOptions", "TrainProgress", "VocabularyDifference", "WarmupDecayOptions", "XlaBuffer", "XlaClientOptions", "XlaExecutable",
  "XlaExecutor", "XlaExecutorOptions", "zerosInit",
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
