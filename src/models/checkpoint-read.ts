// Reading a model directory's tensors, shared by every loader (pretrained.ts, classification/load.ts):
// model.safetensors or its shards, checked against checksums.json, each tensor matched to its parameter
// by shape and refused when it holds NaN or Infinity.
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as k from "../core/index.js";
import type { LanguageModel } from "./language-model.js";
import { decodeSafetensors, type NamedTensor } from "./safetensors.js";
import { CorruptFileError, readChecked, type ChecksumManifest } from "./file-digests.js";
import { fileInside } from "../io/contained-path.js";
import type { NameMatch } from "./checkpoint-names.js";

/** The shapes of a model's parameter tree, with their checkpoint names, without initializing anything. */
export function parameterLayout(model: LanguageModel): { names: string[]; avals: k.AVal[]; tree: unknown } {
  const tree = k.evalShape((key: k.Array) => model.init(key), k.randomKey(0));
  const avals = k.flatten(tree).leaves as k.ShapeDtype[];
  return { names: k.leafPaths(tree), avals, tree };
}

/** What to do about a model directory whose files changed after they were written. */
export function damagedModelRemedy(dir: string): string {
  return `Copy the model into ${dir} again from where it came from, or load one of the run's checkpoints instead`;
}

/**
 * A checkpoint tensor as the parameter `want` (shape checked, every value finite; f16/bf16/f64 converted
 * to the parameter's dtype). `stored` is the tensor's name in the file when it differs from the parameter's.
 */
export function toParam(t: NamedTensor, want: k.AVal, name: string, where: string, device?: k.Device, stored = name): k.Array {
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
export async function readCheckpointTensors(
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
export function checkStoredTies(match: NameMatch, storedName: Map<NamedTensor, string>, where: string, remedy: string): void {
  for (const tie of match.storedTies) {
    const source = match.found.get(tie.tiedTo);
    // NaN equals nothing: non-finite weights are named as such, not as an untied pair.
    if (source) checkFinite(source, storedName.get(source)!, where);
    checkFinite(tie.tensor, tie.name, where);
    if (source && !sameTensor(source, tie.tensor)) throw new Error(`${where}: "${tie.name}" differs from "${tie.tiedTo}", ${remedy}`);
  }
}
