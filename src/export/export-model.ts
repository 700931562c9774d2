// `kiln export --format onnx`: a model directory (Kiln's or transformers' save_pretrained) → onnx/model.onnx
// beside config.json and the tokenizer files, the layout transformers.js loads (`pipeline("fill-mask", dir)`
// for an encoder, `pipeline("text-generation", dir)` for a decoder, `pipeline("text-classification", dir)`
// for a sequence classifier).
import { CHECKSUMS_FILE, writeChecksums } from "../models/file-digests.js";
import { copyFile, mkdir, readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadModel } from "../models/pretrained.js";
import { maxSequenceLength, type MlmConfig } from "../models/config.js";
import { findModelSpec, modelTypes } from "../models/registry.js";
import type { ModelTask } from "../models/spec.js";
import { writeFileAtomic, writeJsonAtomic } from "../io/atomic-file.js";
import { inferenceOutputNames, inferenceProgram } from "./inference-program.js";
import { onnxModel } from "./onnx-model.js";
import { buildCausalExport, type BuiltExport } from "./causal-export.js";
import { buildClassifierExport } from "./classifier-export.js";
import { isClassifierJson } from "../models/classification/config.js";
import { OptionError } from "../core/option-error.js";

/** The formats exportModel writes. */
export const EXPORT_FORMATS = ["onnx"] as const;
/** The precisions exportModel writes. */
export const EXPORT_PRECISIONS = ["f32"] as const;
/** Model types the exporter can trace: every family of the model registry, masked and causal. */
export const EXPORTABLE_MODEL_TYPES: readonly string[] = modelTypes();
/** The tokenizer files transformers.js reads, copied when the export goes to another directory. */
const TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"];

/** Options of exportModel: the model directory, the format, the batch size, sequence length and precision, the output. */
export interface ExportOptions {
  modelDir: string;
  format: string;
  /** A fixed batch size, or "dynamic" (batch and sequence length chosen per call). */
  batch: number | "dynamic";
  /** The longest sequence (and, for a fixed batch, the exact one); default min(128, the model's limit). */
  maxLength?: number;
  precision: string;
  /** Where to write (default: the model directory itself). */
  outDir?: string;
  /** Recorded in the model as its producer's version. */
  producerVersion: string;
}

/** What exportModel wrote: the model file, its outputs, the sequence length, its size, and notices. */
export interface ExportResult {
  modelPath: string;
  outputs: string[];
  maxLength: number;
  bytes: number;
  notices: string[];
}

/** What a directory's model is for: its family's task, or sequence classification where its architectures name a classifier. */
async function readModelTask(dir: string): Promise<ExportTask> {
  const path = join(dir, "config.json");
  if (!existsSync(path)) throw new Error(`exportModel: ${path} not found; pass a directory written by \`kiln train\` or save_pretrained`);
  const raw = JSON.parse(await readFile(path, "utf8"));
  const type = raw.model_type;
  if (!EXPORTABLE_MODEL_TYPES.includes(type))
    throw new Error(
      `exportModel: ${path} has model_type ${JSON.stringify(type)}, which the exporter does not know; ` +
        `it exports ${EXPORTABLE_MODEL_TYPES.join(", ")} models`,
    );
  return isClassifierJson(raw) ? "sequence-classification" : findModelSpec(type)!.task;
}

type ExportTask = ModelTask | "sequence-classification";

/** Exports a saved model directory to a standalone inference model (ONNX; see EXPORT_FORMATS). */
export async function exportModel(opts: ExportOptions): Promise<ExportResult> {
  if (!(EXPORT_FORMATS as readonly string[]).includes(opts.format))
    throw new OptionError({
      option: "format",
      value: opts.format,
      why: `is not one of the formats, ${EXPORT_FORMATS.join(", ")}`,
      where: "exportModel",
    });
  if (!(EXPORT_PRECISIONS as readonly string[]).includes(opts.precision))
    throw new OptionError({
      option: "precision",
      value: opts.precision,
      why: `is not one of the precisions, ${EXPORT_PRECISIONS.join(", ")}`,
      where: "exportModel",
    });
  const { bytes, outputs, maxLength, notices } = await BUILDERS[await readModelTask(opts.modelDir)](opts);

  const outDir = opts.outDir ?? opts.modelDir;
  await mkdir(join(outDir, "onnx"), { recursive: true });
  const modelPath = join(outDir, "onnx", "model.onnx");
  await writeFileAtomic(modelPath, bytes);
  if (resolve(outDir) !== resolve(opts.modelDir))
    for (const f of TOKENIZER_FILES) if (existsSync(join(opts.modelDir, f))) await copyFile(join(opts.modelDir, f), join(outDir, f));
  // transformers.js picks the weights' file by dtype, and in the browser it would look for the int8 file
  // (model_quantized.onnx) unless the config names the one written here.
  const raw = JSON.parse(await readFile(join(opts.modelDir, "config.json"), "utf8"));
  await writeJsonAtomic(join(outDir, "config.json"), { ...raw, "transformers.js_config": { dtype: "fp32" } });
  // A directory Kiln saved records its files' digests: the rewritten config.json's replaces the old one.
  if (existsSync(join(outDir, CHECKSUMS_FILE))) await writeChecksums(outDir, ["config.json"], { merge: true });
  return { modelPath, outputs, maxLength, bytes: bytes.length, notices };
}

async function buildMaskedExport(opts: ExportOptions): Promise<BuiltExport> {
  // An encoder-only checkpoint exports its hidden states; its head would be random, so no logits.
  const { model, params, mlmHead, notices } = await loadModel(opts.modelDir, { task: "mlm", missingHead: "init" });
  const withLogits = mlmHead === "loaded";
  if (!withLogits) notices.push("the checkpoint has no masked-LM head: the export has last_hidden_state only, no logits");
  const config: MlmConfig = model.config;
  const limit = maxSequenceLength(config);
  const maxLength = opts.maxLength ?? Math.min(128, limit);
  if (maxLength < 1 || maxLength > limit)
    throw new OptionError({
      option: "maxLength",
      value: maxLength,
      why: `is outside 1..${limit}, the lengths this model's position embeddings cover`,
      where: "exportModel",
    });

  const outputs = inferenceOutputNames(withLogits);
  const trace = (batch: number, length: number) => inferenceProgram(model, params, { batch, length }, withLogits);
  const bytes = onnxModel(trace, outputs, { batch: opts.batch, maxLength, padId: config.pad_token_id }, opts.producerVersion);
  return { bytes, outputs, maxLength, notices };
}

/** The export of each task's models: an encoder's hidden states and logits, a decoder's step with its cache, a classifier's logits. */
const BUILDERS: Record<ExportTask, (opts: ExportOptions) => Promise<BuiltExport>> = {
  mlm: buildMaskedExport,
  "causal-lm": buildCausalExport,
  "sequence-classification": buildClassifierExport,
};
