// A model directory a Python user recognizes: `config.json` + `model.safetensors` (f32, Hugging Face
// names and shapes; tied weights stored once, as `save_pretrained` does), and such directories read back,
// whether Kiln or transformers wrote them, masked or causal LMs alike (loadModel: the family's spec in the
// registry builds the model).
import { checkOptions } from "../core/check-options.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { mkdir } from "node:fs/promises";
import * as k from "../core/index.js";
import { readJsonObject } from "./config.js";
import { modelSpec, validateModelConfig, type CausalConfig } from "./registry.js";
import type { ModelTask } from "./spec.js";
import type { MaskedLanguageModel, MlmConfig } from "./masked-lm.js";
import type { CausalLanguageModel } from "./causal-lm.js";
import type { BaseModelConfig, LanguageModel, Params } from "./language-model.js";
import { createModel } from "./create.js";
import { decodeSafetensors, writeSafetensors, type NamedTensor } from "./safetensors.js";
import { CorruptFileError, dropChecksums, readChecked, readChecksums, writeChecksums, type ChecksumManifest } from "./file-digests.js";
import { fileInside } from "../io/contained-path.js";
import { writeJsonAtomic } from "../io/atomic-file.js";
import { matchCheckpointNames, nameList, type NameMatch } from "./checkpoint-names.js";

/** The shapes of a model's parameter tree, with their checkpoint names, without initializing anything. */
export function parameterLayout(model: LanguageModel): { names: string[]; avals: k.AVal[]; tree: unknown } {
  const tree = k.evalShape((key: k.Array) => model.init(key), k.randomKey(0));
  const avals = k.flatten(tree).leaves as k.ShapeDtype[];
  return { names: k.leafPaths(tree), avals, tree };
}

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
  return {
    ...rest,
    architectures: [spec.architecture],
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

/** What to do about a model directory whose files changed after they were written. */
export function damagedModelRemedy(dir: string): string {
  return `Copy the model into ${dir} again from where it came from, or load one of the run's checkpoints instead`;
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

/**
 * A checkpoint tensor as the parameter `want` (shape checked, every value finite; f16/bf16/f64 converted
 * to the parameter's dtype). `stored` is the tensor's name in the file when it differs from the parameter's.
 */
function toParam(t: NamedTensor, want: k.AVal, name: string, where: string, device?: k.Device, stored = name): k.Array {
  if (t.shape.join() !== want.shape.join())
    throw new Error(`${where}: parameter "${name}" has shape [${t.shape}] but the config needs [${want.shape}]`);
  checkFinite(t, stored, where);
  const a = k.array(t.data, { shape: t.shape, dtype: t.dtype, device });
  return a.dtype === want.dtype ? a : a.astype(want.dtype);
}

/** Index of the first NaN or ±Infinity at or after `from` in a float tensor, or -1 (integer tensors have none). */
function firstNonFinite(t: NamedTensor, from = 0): number {
  const d = t.data;
  if (d instanceof Float32Array || d instanceof Float64Array) {
    // x - x is 0 for every finite x and NaN for NaN and ±Infinity: one subtraction per value.
    for (let i = from; i < d.length; i++) {
      const x = d[i]!;
      if (x - x !== 0) return i;
    }
  } else if (d instanceof Uint16Array && (t.dtype === "bf16" || t.dtype === "f16")) {
    const exponent = t.dtype === "bf16" ? 0x7f80 : 0x7c00; // all ones: NaN or ±Infinity
    for (let i = from; i < d.length; i++) if ((d[i]! & exponent) === exponent) return i;
  }
  return -1;
}

/** A value that `firstNonFinite` found, as text: NaN, Infinity or -Infinity. */
function nonFiniteText(t: NamedTensor, i: number): string {
  if (t.dtype === "bf16" || t.dtype === "f16") {
    const bits = Number(t.data[i]);
    if (bits & (t.dtype === "bf16" ? 0x7f : 0x3ff)) return "NaN";
    return bits & 0x8000 ? "-Infinity" : "Infinity";
  }
  return String(t.data[i]);
}

/**
 * Refuses a tensor holding NaN or ±Infinity: such weights come from a run that diverged, and loading
 * them would only turn every later loss and prediction into NaN, far from the cause.
 */
export function checkFinite(t: NamedTensor, name: string, where: string): void {
  const first = firstNonFinite(t);
  if (first < 0) return;
  let count = 0;
  for (let i = first; i >= 0; i = firstNonFinite(t, i + 1)) count++;
  throw new Error(
    `${where}: tensor "${name}" holds ${count} non-finite value${count === 1 ? "" : "s"} ` +
      `(first at index ${first}: ${nonFiniteText(t, first)}); ` +
      `the model diverged when it was trained — retrain with a lower learning rate or resume from an earlier checkpoint`,
  );
}

/** Options of loadModel: the device, and the task the directory must hold. */
export interface LoadModelOptions {
  device?: k.Device;
  /** The task the model must be for ("mlm", "causal-lm"): a directory holding the other kind is an error. */
  task?: ModelTask;
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

/** A masked LM loaded from a directory, with its parameters. */
export interface PretrainedModel {
  task: "mlm";
  model: MaskedLanguageModel;
  params: Params;
  /** Whether the masked-LM head came from the checkpoint or was initialized here. */
  mlmHead: "loaded" | "initialized";
  /** What the checkpoint held that does not map one to one onto the model (an encoder-only file, unused tensors). */
  notices: string[];
}

/** A causal LM loaded from a directory, with its parameters. */
export interface PretrainedCausalModel {
  task: "causal-lm";
  model: CausalLanguageModel;
  params: Params;
  /** What the checkpoint held that the model does not use (old buffers such as GPT-2's attn.bias, other heads). */
  notices: string[];
}

/** A loaded model directory: which task its model is for tells which kind of model it is. */
export type LoadedModel = PretrainedModel | PretrainedCausalModel;

const OTHER_FORMATS: Record<string, string> = {
  "pytorch_model.bin": "a PyTorch pickle",
  "pytorch_model.bin.index.json": "sharded PyTorch pickles",
  "tf_model.h5": "a TensorFlow/Keras file",
  "flax_model.msgpack": "a Flax file",
};

/**
 * The checkpoint's tensors: model.safetensors, or the shards model.safetensors.index.json lists (names of
 * files inside `dir` only, refused before any is opened). Files that `digests` records are checked first.
 */
async function readCheckpointTensors(
  dir: string,
  digests?: ChecksumManifest,
): Promise<{ tensors: Record<string, NamedTensor>; where: string }> {
  const read = async (name: string, source: string) => {
    const path = await fileInside(dir, name, source);
    return decodeSafetensors(await readChecked(dir, name, digests, damagedModelRemedy(dir)), path).tensors;
  };
  const single = join(dir, "model.safetensors");
  if (existsSync(single)) return { tensors: await read("model.safetensors", dir), where: single };
  const index = join(dir, "model.safetensors.index.json");
  if (existsSync(index)) {
    let weightMap: Record<string, unknown>;
    try {
      const text = (await readChecked(dir, "model.safetensors.index.json", digests, damagedModelRemedy(dir))).toString("utf8");
      weightMap = JSON.parse(text)?.weight_map;
    } catch (e) {
      if (e instanceof CorruptFileError) throw e;
      throw new Error(`${index}: not valid JSON (${(e as Error).message})`);
    }
    if (!weightMap || typeof weightMap !== "object" || Array.isArray(weightMap))
      throw new Error(`${index}: no "weight_map" object naming each tensor's shard`);
    const shards = [...new Set(Object.values(weightMap))].sort();
    for (const shard of shards) {
      if (typeof shard !== "string") throw new Error(`${index}: "weight_map" names the shard ${JSON.stringify(shard)}, not a file name`);
      await fileInside(dir, shard, index);
    }
    const tensors: Record<string, NamedTensor> = {};
    for (const shard of shards as string[]) Object.assign(tensors, await read(shard, index));
    return { tensors, where: index };
  }
  const other = Object.keys(OTHER_FORMATS).find((f) => existsSync(join(dir, f)));
  if (other)
    throw new Error(
      `${dir} holds ${other} (${OTHER_FORMATS[other]}) but no model.safetensors: Kiln reads safetensors only. ` +
        `Re-save it with safetensors in Python: AutoModelForMaskedLM.from_pretrained("${dir}").save_pretrained("${dir}") ` +
        `(transformers writes model.safetensors by default)`,
    );
  throw new Error(
    `${dir}: no model.safetensors (nor model.safetensors.index.json); pass a directory written by \`kiln train\` or save_pretrained`,
  );
}

function sameTensor(a: NamedTensor, b: NamedTensor): boolean {
  if (a.shape.join() !== b.shape.join() || a.data.length !== b.data.length) return false;
  for (let i = 0; i < a.data.length; i++) if (Number(a.data[i]) !== Number(b.data[i])) return false;
  return true;
}

/** Tied weights a checkpoint stores twice must hold the same values; `remedy` says what to do when they do not. */
function checkStoredTies(match: NameMatch, storedName: Map<NamedTensor, string>, where: string, remedy: string): void {
  for (const tie of match.storedTies) {
    const source = match.found.get(tie.tiedTo);
    // NaN equals nothing: non-finite weights are named as such, not as an untied pair.
    if (source) checkFinite(source, storedName.get(source)!, where);
    checkFinite(tie.tensor, tie.name, where);
    if (source && !sameTensor(source, tie.tensor)) throw new Error(`${where}: "${tie.name}" differs from "${tie.tiedTo}", ${remedy}`);
  }
}

const TASK_KIND: Record<ModelTask, string> = { mlm: "a masked language model", "causal-lm": "a causal language model" };

/**
 * Loads a Hugging Face model directory (written by Kiln or by transformers' save_pretrained), as
 * `AutoModel.from_pretrained` does: config.json's model_type picks the family, whose model is built and
 * filled. Names with or without the base-model prefix, tied weights stored once or twice (then they must
 * be equal), buffers skipped; anything else the checkpoint lacks is an error, and tensors nothing uses
 * are listed in `notices`. `task` says which kind of model the caller needs.
 */
export async function loadModel(dir: string, opts: LoadModelOptions & { task: "mlm" }): Promise<PretrainedModel>;
export async function loadModel(dir: string, opts: LoadModelOptions & { task: "causal-lm" }): Promise<PretrainedCausalModel>;
export async function loadModel(dir: string, opts?: LoadModelOptions): Promise<LoadedModel>;
export async function loadModel(dir: string, opts: LoadModelOptions = {}): Promise<LoadedModel> {
  checkOptions("loadModel", opts, ["device", "task", "missingHead", "seed"], {
    ints: ["seed"],
    choices: { task: ["mlm", "causal-lm"], missingHead: ["error", "init"] },
  });
  // A directory Kiln saved is checked against its checksums.json (one from elsewhere has none).
  const digests = await readChecksums(dir, damagedModelRemedy(dir));
  const path = await fileInside(dir, "config.json", dir);
  if (digests) await readChecked(dir, "config.json", digests, damagedModelRemedy(dir));
  const raw = await readJsonObject(path);
  const config = validateModelConfig(raw, path);
  const task = modelSpec(config).task;
  if (opts.task !== undefined && opts.task !== task)
    throw new Error(
      `${path}: model_type "${config.model_type}" is ${TASK_KIND[task]}, not ${TASK_KIND[opts.task]} ` +
        `(task "${opts.task}"); load it with task "${task}" or without a task`,
    );
  return task === "causal-lm"
    ? loadCausal(dir, config as CausalConfig, opts.device, digests)
    : loadMasked(dir, config as MlmConfig, opts, digests);
}

/** A masked LM's directory, its head missing or not (see LoadModelOptions.missingHead). */
async function loadMasked(dir: string, config: MlmConfig, opts: LoadModelOptions, digests?: ChecksumManifest): Promise<PretrainedModel> {
  const model = createModel(config);
  const { tensors, where } = await readCheckpointTensors(dir, digests);
  const { names, avals, tree } = parameterLayout(model);
  const match = matchCheckpointNames(names, tensors, model.tiedWeights, model.baseModelPrefix);
  const notices: string[] = [];
  const storedName = new Map(Object.entries(tensors).map(([n, t]) => [t, n]));
  checkStoredTies(match, storedName, where, "but Kiln ties the two (untied output embeddings are not supported)");
  const inEncoder = (n: string) => n.startsWith(`${model.baseModelPrefix}.`);
  const missingEncoder = match.missing.filter(inEncoder);
  const missingHead = match.missing.filter((n) => !inEncoder(n));
  const headNames = names.filter((n) => !inEncoder(n));
  if (missingEncoder.length > 0)
    throw new Error(`${where}: missing ${missingEncoder.length} encoder parameter(s): ${nameList(missingEncoder)}`);
  let fresh: Map<string, k.Array> | undefined;
  if (missingHead.length > 0) {
    const partial = missingHead.length < headNames.length;
    if (partial || (opts.missingHead ?? "error") === "error")
      throw new Error(
        partial
          ? `${where}: the masked-LM head is incomplete: missing ${nameList(missingHead)}`
          : `${where}: no masked-LM head (${nameList(missingHead)} are missing): ` +
              `an encoder-only checkpoint cannot predict tokens; fine-tune it first (kiln train --init-from)`,
      );
    // The head's leaves of a full init (the compiled program computes only those, not the embeddings).
    const headLeaves = k.jit(
      (key: k.Array) => {
        const all = k.leaves<k.Array>(model.init(key));
        return missingHead.map((n) => all[names.indexOf(n)]!);
      },
      { name: "init_head", device: opts.device },
    )(k.randomKey(opts.seed ?? 0, opts.device));
    fresh = new Map(missingHead.map((n, i) => [n, headLeaves[i]!]));
    notices.push(
      `${where}: no masked-LM head (an encoder-only checkpoint, e.g. ${modelSpec(config).baseArchitecture}): ` +
        `the encoder is loaded and the head (${nameList(missingHead)}) is freshly initialized`,
    );
  }
  if (match.unused.length > 0)
    notices.push(`${where}: ${match.unused.length} tensor(s) unused by ${modelSpec(config).architecture}: ${nameList(match.unused)}`);
  const leaves = names.map((name, i) => {
    const t = match.found.get(name);
    return t ? toParam(t, avals[i]!, name, where, opts.device, storedName.get(t)) : fresh!.get(name)!;
  });
  const params = k.flatten(tree).treedef.unflatten(leaves) as Params;
  return { task: "mlm", model, params, mlmHead: fresh ? "initialized" : "loaded", notices };
}

/** A causal LM's directory: the head stored once or twice (then equal to the embeddings), nothing missing. */
async function loadCausal(
  dir: string,
  config: CausalConfig,
  device?: k.Device,
  digests?: ChecksumManifest,
): Promise<PretrainedCausalModel> {
  const path = join(dir, "config.json");
  const model = createModel(config);
  const { tensors, where } = await readCheckpointTensors(dir, digests);
  const { names, avals, tree } = parameterLayout(model);
  const match = matchCheckpointNames(names, tensors, model.tiedWeights, model.baseModelPrefix);
  const storedName = new Map(Object.entries(tensors).map(([n, t]) => [t, n]));
  checkStoredTies(match, storedName, where, `but ${path} sets tie_word_embeddings: set it to false to load an untied head`);
  if (match.missing.length > 0) {
    const untiedHead = !config.tie_word_embeddings && match.missing.length === 1 && match.missing[0] === "lm_head.weight";
    throw new Error(
      `${where}: missing ${match.missing.length} parameter(s): ${nameList(match.missing)}` +
        (untiedHead ? ` (${path} sets tie_word_embeddings false; set it to true if the head is the token embeddings)` : ""),
    );
  }
  const notices: string[] = [];
  if (match.unused.length > 0)
    notices.push(`${where}: ${match.unused.length} tensor(s) unused by ${modelSpec(config).architecture}: ${nameList(match.unused)}`);
  const leaves = names.map((name, i) => {
    const t = match.found.get(name)!;
    return toParam(t, avals[i]!, name, where, device, storedName.get(t));
  });
  const params = k.flatten(tree).treedef.unflatten(leaves) as Params;
  return { task: "causal-lm", model, params, notices };
}
