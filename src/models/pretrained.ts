// A model directory a Python user recognizes: `config.json` + `model.safetensors` (f32, Hugging Face
// names and shapes; tied weights stored once, as `save_pretrained` does).
import { join } from "node:path";
import { mkdir } from "node:fs/promises";
import * as k from "../core/index.js";
import { readConfig, type MlmConfig } from "./config.js";
import type { MaskedLanguageModel, Params } from "./masked-lm.js";
import { createMaskedLM } from "./index.js";
import { readSafetensors, writeSafetensors, type NamedTensor } from "./safetensors.js";
import { writeJsonAtomic } from "../io/atomic-file.js";

/** The shapes of a model's parameter tree, with their checkpoint names, without initializing anything. */
export function parameterLayout(model: MaskedLanguageModel): { names: string[]; avals: k.AVal[]; tree: unknown } {
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

export function configJson(c: MlmConfig): Record<string, unknown> {
  return { ...c, torch_dtype: "float32", transformers_version: "4.40.0" };
}

export async function saveModel(dir: string, model: MaskedLanguageModel, params: Params): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeSafetensors(join(dir, "model.safetensors"), await namedTensors(params), { format: "pt" });
  await writeJsonAtomic(join(dir, "config.json"), configJson(model.config));
}

/** Named tensors → a parameter tree for `model`, checking every name and shape. */
export function paramsFromTensors(
  model: MaskedLanguageModel,
  tensors: Record<string, NamedTensor>,
  where: string,
  device?: k.Device,
): Params {
  const { names, avals, tree } = parameterLayout(model);
  const tied = model.tiedWeights;
  const leaves = names.map((name, i) => {
    const t = tensors[name] ?? (tied[name] ? tensors[tied[name]!] : undefined);
    const want = avals[i]!;
    if (!t) throw new Error(`${where}: missing parameter "${name}" (${k.fmtAVal(want)})`);
    if (t.shape.join() !== want.shape.join())
      throw new Error(`${where}: parameter "${name}" has shape [${t.shape}] but the config needs [${want.shape}]`);
    const a = k.array(t.data, { shape: t.shape, dtype: t.dtype, device });
    return a.dtype === want.dtype ? a : a.astype(want.dtype);
  });
  const { treedef } = k.flatten(tree);
  return treedef.unflatten(leaves) as Params;
}

export async function loadModel(dir: string, device?: k.Device): Promise<{ model: MaskedLanguageModel; params: Params }> {
  const config = await readConfig(join(dir, "config.json"));
  const model = createMaskedLM(config);
  const path = join(dir, "model.safetensors");
  const { tensors } = await readSafetensors(path);
  return { model, params: paramsFromTensors(model, tensors, path, device) };
}
