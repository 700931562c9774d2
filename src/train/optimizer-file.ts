// optimizer.safetensors: the optimizer's state tree under its tree paths (AdamW's are PyTorch's names:
// `exp_avg.<parameter>`, `exp_avg_sq.<parameter>`, `step`), the loss scaler's state beside it, and the
// optimizer's name in the metadata. Loading reads into the tree the optimizer's own init makes for the
// parameters, so every optimizer's state is saved and resumed by the same code.
import * as k from "../core/index.js";
import type { Params } from "../models/language-model.js";
import { checkFinite, namedTensors } from "../models/pretrained.js";
import type { NamedTensor } from "../models/safetensors.js";
import type { Optimizer, OptimizerState } from "../optim/optimizer.js";
import type { LossScaleState } from "../optim/precision.js";

/** The metadata key naming the optimizer whose state the file holds. */
const OPTIMIZER_KEY = "optimizer";

/** The optimizer a file holds the state of: files from before the key was written hold AdamW's. */
function savedOptimizer(metadata: Record<string, string>): string {
  return metadata[OPTIMIZER_KEY] ?? "adamw";
}

/** The file's tensors and metadata for this optimizer state (and the loss scaler's, under "16-mixed"). */
export async function optimizerFile(
  optimizer: string,
  opt: OptimizerState,
  scaler?: LossScaleState,
): Promise<{ tensors: Record<string, NamedTensor>; metadata: Record<string, string> }> {
  const tensors = await namedTensors(opt);
  // The dynamic loss scaler ("16-mixed") resumes where it was, not from its initial scale.
  if (scaler) {
    tensors.loss_scale = { dtype: "f32", shape: [], data: await scaler.scale.astype("f32").data() };
    tensors.loss_scale_good_steps = { dtype: "f32", shape: [], data: await scaler.goodSteps.astype("f32").data() };
  }
  return { tensors, metadata: { [OPTIMIZER_KEY]: optimizer } };
}

/**
 * The optimizer state and loss scaler a file holds, as arrays on `device`, for `optimizer` on `params`.
 * `where` names the file in errors.
 */
export function readOptimizerFile(
  file: { tensors: Record<string, NamedTensor>; metadata: Record<string, string> },
  optimizer: Optimizer<any>,
  params: Params,
  where: string,
  device?: k.Device,
): { opt: OptimizerState; scaler?: LossScaleState } {
  const saved = savedOptimizer(file.metadata);
  if (saved !== optimizer.name)
    throw new Error(
      `${where} holds the state of the ${saved} optimizer, but this run's optimizer is ${optimizer.name}: ` +
        `resume with optimizer "${saved}", or train into another output directory`,
    );
  const template = k.evalShape((p: Params) => optimizer.init(p), params);
  const names = k.leafPaths(template);
  const leaves = k.leaves<k.ShapeDtype>(template).map((want, i) => {
    const name = names[i]!;
    const t = file.tensors[name];
    if (!t) throw new Error(`${where}: missing "${name}" (${k.fmtAVal(want)}) of the ${optimizer.name} optimizer's state`);
    if (t.shape.join() !== want.shape.join())
      throw new Error(`${where}: "${name}" has shape [${t.shape}] but the model's parameters need [${want.shape}]`);
    checkFinite(t, name, where);
    const a = k.array(t.data, { shape: t.shape, dtype: t.dtype, device });
    return a.dtype === want.dtype ? a : a.astype(want.dtype);
  });
  const opt = k.flatten(template, (x) => x instanceof k.ShapeDtype).treedef.unflatten(leaves) as OptimizerState;
  const scaleT = file.tensors.loss_scale,
    goodT = file.tensors.loss_scale_good_steps;
  const scaler =
    scaleT && goodT
      ? {
          scale: k.array(scaleT.data, { shape: [], dtype: "f32", device }),
          goodSteps: k.array(goodT.data, { shape: [], dtype: "f32", device }),
        }
      : undefined;
  return { opt, ...(scaler ? { scaler } : {}) };
}
