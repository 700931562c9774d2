// A decoder's export: the model directory's llama or gpt2 (Kiln's or transformers' save_pretrained) as the
// ONNX graph transformers.js' text-generation runs. Its generate loop feeds only the newest token after
// the first call and reads the cache back from present.* outputs, so the graph must take and return the
// key/value cache (a graph without one would see one token at a time and forget the prompt).
import { loadModel } from "../models/pretrained.js";
import { causalStepProgram } from "./causal-program.js";
import { causalCacheNames, causalOnnxModel } from "./causal-onnx.js";
import type { ExportOptions } from "./export-model.js";
import { OptionError } from "../core/option-error.js";

export interface BuiltExport {
  bytes: Uint8Array;
  outputs: string[];
  maxLength: number;
  notices: string[];
}

export async function buildCausalExport(opts: ExportOptions): Promise<BuiltExport> {
  if (opts.batch !== "dynamic")
    throw new OptionError({
      option: "batch",
      value: opts.batch,
      why: "is for encoders; a decoder exports with dynamic batch and length (its key/value cache grows by each call's tokens)",
      fix: 'Export it with batch "dynamic"',
      where: "exportModel",
    });
  const { model, params, notices } = await loadModel(opts.modelDir, { task: "causal-lm" });
  const maxLength = opts.maxLength ?? Math.min(128, model.maxLength);
  if (maxLength < 1 || maxLength > model.maxLength)
    throw new OptionError({
      option: "maxLength",
      value: maxLength,
      why: `is outside 1..${model.maxLength}, the lengths this model's positions cover`,
      where: "exportModel",
    });
  const layers = model.initCache(1, 1).layers;
  const [, kvHeads, , headDim] = layers[0]!.key.shape as [number, number, number, number];
  const bytes = causalOnnxModel(
    (shape) => causalStepProgram(model, params, shape),
    // The pad id only fills the padding up to a traced length, which is masked out and cut off.
    { maxLength, padId: model.config.pad_token_id ?? 0, layers: layers.length, kvHeads, headDim, vocabSize: model.config.vocab_size },
    opts.producerVersion,
  );
  return { bytes, outputs: ["logits", ...causalCacheNames(layers.length).present], maxLength, notices };
}
