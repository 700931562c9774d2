// A model directory a Python user recognizes: `config.json` + `model.safetensors` (f32, Hugging Face
// names and shapes; tied weights stored once, as `save_pretrained` does), and such directories read back,
// whether Kiln or transformers wrote them, masked or causal LMs alike (loadModel: the family's spec in the
// registry builds the model).
import { checkOptions } from "../core/check-options.js";
import { OptionError } from "../core/option-error.js";
import { join } from "node:path";
import { mkdir } from "node:fs/promises";
import * as k from "../core/index.js";
import { readJsonObject } from "./config.js";
import { MODEL_SPECS, modelSpec, validateModelConfig } from "./registry.js";
import type { ModelSpec, ModelTask } from "./spec.js";
import type { BaseModelConfig, LanguageModel, Params } from "./language-model.js";
import type { PretrainedModel } from "./masked-lm-kind.js";
import type { PretrainedCausalModel } from "./causal-lm-kind.js";
import { createModel } from "./create.js";
import { writeSafetensors, type NamedTensor } from "./safetensors.js";
import { dropChecksums, readChecked, readChecksums, writeChecksums } from "./file-digests.js";
import { fileInside } from "../io/contained-path.js";
import { damagedModelRemedy, parameterLayout, toParam } from "./checkpoint-read.js";
import { writeJsonAtomic } from "../io/atomic-file.js";
import { isClassifierJson, type ClassifierLabels } from "./classification/config.js";
import { loadClassifier, type PretrainedClassifier } from "./classification/load.js";

export { checkFinite, damagedModelRemedy, parameterLayout } from "./checkpoint-read.js";

/** Params → named f32 host tensors (awaiting any pending computation). */
export async function namedTensors(params: Params): Promise<Record<string, NamedTensor>> {
  const names = k.leafPaths(params);
  const arrays = k.leaves<k.Array>(params as k.PyTree);
  const out: Record<string, NamedTensor> = {};
  await Promise.all(
    arrays.map(async (a, i) => {
      const f32 = a.dtype === "f32" ? a : a.astype("f32");
      out[names[i]!] = { dtype: "f32", shape: [...a.shape], data: await f32.data() };
    }),
  );
  return out;
}

/**
 * The transformers release whose `save_pretrained` output Kiln's config.json follows field for field
 * (`dtype`, not the older `torch_dtype`) and which the interop tests load it with; python/constraints.txt
 * pins the same version, and a test keeps the two equal.
 */
export const TRANSFORMERS_FORMAT_VERSION = "5.23.0";

/**
 * config.json for a model Kiln saves, f32: a masked LM is always a *ForMaskedLM with the decoder tied to
 * the word embeddings; a causal LM is LlamaForCausalLM/GPT2LMHeadModel, tied as its config says.
 */
export function configJson(c: BaseModelConfig): Record<string, unknown> {
  const { torch_dtype: _superseded, ...rest } = c;
  const spec = modelSpec(c);
  // A classifier's class is its own (config.architectures); transformers counts num_labels from id2label.
  const classifier = isClassifierJson(c);
  if (classifier) delete rest.num_labels;
  return {
    ...rest,
    architectures: [classifier ? c.architectures[0]! : spec.architecture],
    tie_word_embeddings: spec.tiesHead(c),
    dtype: "float32",
    transformers_version: TRANSFORMERS_FORMAT_VERSION,
  };
}

/** Saves `params` with the model's config as a Hugging Face directory (model.safetensors, config.json). */
export async function saveModel(dir: string, model: LanguageModel, params: Params): Promise<void> {
  await mkdir(dir, { recursive: true });
  await dropChecksums(dir);
  await writeSafetensors(join(dir, "model.safetensors"), await namedTensors(params), { format: "pt" });
  await writeJsonAtomic(join(dir, "config.json"), configJson(model.config));
  await writeChecksums(dir, ["model.safetensors", "config.json"]);
}

/** Named tensors → a parameter tree for `model`, checking every name and shape. */
export function paramsFromTensors(model: LanguageModel, tensors: Record<string, NamedTensor>, where: string, device?: k.Device): Params {
  const { names, avals, tree } = parameterLayout(model);
  const tied = model.tiedWeights;
  const leaves = names.map((name, i) => {
    const stored = tensors[name] ? name : tied[name];
    const t = stored === undefined ? undefined : tensors[stored];
    const want = avals[i]!;
    if (!t) throw new Error(`${where}: missing parameter "${name}" (${k.fmtAVal(want)})`);
    return toParam(t, want, name, where, device, stored);
  });
  const { treedef } = k.flatten(tree);
  return treedef.unflatten(leaves) as Params;
}

/** Options of loadModel: the device, the task the directory must hold, and a new classifier's labels. */
export interface LoadModelOptions extends ClassifierLabels {
  device?: k.Device;
  /**
   * The task the model must be for ("mlm", "causal-lm"): a directory holding the other kind is an error.
   * "sequence-classification" loads a classifier: from a classifier's directory, or from any base model's
   * with a fresh head (labels, numLabels and problemType then set its classes).
   */
  task?: LoadTask;
  /**
   * A masked-LM checkpoint with the encoder but no masked-LM head (a RobertaModel/BertModel, e.g. a
   * sentence encoder): "error" (the default: predictions need the head) or "init" (a fresh head from
   * `seed`, as transformers does; for the encoder's hidden states or for fine-tuning). Either way it is reported.
   */
  missingHead?: "error" | "init";
  /** Seed of a freshly initialized head (default 0). */
  seed?: number;
}

/** Options of loadModel. @deprecated the options of loadModel: LoadModelOptions. */
export type LoadPretrainedOptions = LoadModelOptions;

export type { PretrainedModel } from "./masked-lm-kind.js";
export type { PretrainedCausalModel } from "./causal-lm-kind.js";

/** What loadModel can load a directory as: a family's own task, or a classifier on any family. */
export type LoadTask = ModelTask | "sequence-classification";

/** A loaded model directory: which task its model is for tells which kind of model it is. */
export type LoadedModel = PretrainedModel | PretrainedCausalModel | PretrainedClassifier;

/** The families' tasks (each kind's), and a classifier on any family: the tasks a directory loads as. */
const LOAD_TASKS: readonly LoadTask[] = [...new Set(MODEL_SPECS.map((s) => s.task)), "sequence-classification"];

/** A task's model in words ("a causal language model"), from the kind of its families. */
function taskWords(task: ModelTask): string {
  return (MODEL_SPECS as readonly ModelSpec[]).find((s) => s.task === task)!.kind.words;
}

/**
 * Loads a Hugging Face model directory (written by Kiln or by transformers' save_pretrained), as
 * `AutoModel.from_pretrained` does: config.json's model_type picks the family, whose model is built and
 * filled. Names with or without the base-model prefix, tied weights stored once or twice (then they must
 * be equal), buffers skipped; anything else the checkpoint lacks is an error, and tensors nothing uses
 * are listed in `notices`. `task` says which kind of model the caller needs.
 */
export async function loadModel(dir: string, opts: LoadModelOptions & { task: "mlm" }): Promise<PretrainedModel>;
export async function loadModel(dir: string, opts: LoadModelOptions & { task: "causal-lm" }): Promise<PretrainedCausalModel>;
export async function loadModel(dir: string, opts: LoadModelOptions & { task: "sequence-classification" }): Promise<PretrainedClassifier>;
export async function loadModel(dir: string, opts?: LoadModelOptions): Promise<LoadedModel>;
export async function loadModel(dir: string, opts: LoadModelOptions = {}): Promise<LoadedModel> {
  checkOptions("loadModel", opts, ["device", "task", "missingHead", "seed", "labels", "numLabels", "problemType"], {
    ints: ["seed", "numLabels"],
    positive: ["numLabels"],
    choices: {
      task: LOAD_TASKS,
      missingHead: ["error", "init"],
      problemType: ["regression", "single_label_classification", "multi_label_classification"],
    },
  });
  // A directory Kiln saved is checked against its checksums.json (one from elsewhere has none).
  const digests = await readChecksums(dir, damagedModelRemedy(dir));
  const path = await fileInside(dir, "config.json", dir);
  if (digests) await readChecked(dir, "config.json", digests, damagedModelRemedy(dir));
  const raw = await readJsonObject(path);
  if (opts.task === "sequence-classification" || (opts.task === undefined && isClassifierJson(raw)))
    return loadClassifier(dir, raw, path, opts, digests);
  const labelOption = (["labels", "numLabels", "problemType"] as const).find((o) => opts[o] !== undefined);
  if (labelOption)
    throw new OptionError({
      option: labelOption,
      value: opts[labelOption],
      why: `sets a classifier's classes, but ${path} is loaded as ${opts.task ? `task "${opts.task}"` : "its own task"}`,
      fix: 'Pass task: "sequence-classification" with it, or leave it out',
      where: "loadModel",
    });
  const config = validateModelConfig(raw, path);
  const spec = modelSpec(config);
  const task = spec.task;
  if (opts.task !== undefined && opts.task !== task)
    throw new Error(
      `${path}: model_type "${config.model_type}" is ${spec.kind.words}, not ${taskWords(opts.task)} ` +
        `(task "${opts.task}"); load it with task "${task}" or without a task`,
    );
  // The family's kind of model says what its directory must hold and what may be initialized.
  return spec.kind.load({ dir, config, model: createModel(config), spec, opts, digests });
}
