// A sequence classifier's export (BertForSequenceClassification, RobertaForSequenceClassification, and the
// Llama and GPT-2 heads): the graph transformers.js' text-classification pipeline runs. It feeds
// input_ids, attention_mask and, where the graph takes them, token_type_ids (its BERT tokenizer makes
// them; a model with one token type takes none), reads `logits` [batch, num_labels] and applies softmax
// (sigmoid for multi-label) itself, so the graph ends at the logits.
import * as k from "../core/index.js";
import type { Program } from "../core/ir.js";
import { loadModel } from "../models/pretrained.js";
import { maxLengthOf } from "../models/registry.js";
import type { Params } from "../models/language-model.js";
import type { SequenceClassifier } from "../models/classification/model.js";
import { OptionError } from "../core/option-error.js";
import type { BuiltExport } from "./causal-export.js";
import type { ExportOptions } from "./export-model.js";
import { onnxModel } from "./onnx-model.js";

const LOGITS = "logits";

/** Whether the classifier reads token types (BERT's two); RoBERTa and the decoders have one. */
function readsTokenTypes(model: SequenceClassifier): boolean {
  const types = model.config.type_vocab_size;
  return typeof types === "number" && types > 1;
}

/** The classifier's logits for inputs [batch, length] (token types only where it reads them), weights captured as constants. */
function classifierProgram(model: SequenceClassifier, params: Params, batch: number, length: number): Program {
  const shape = [batch, length];
  const [ids, mask] = [k.zeros(shape, "i32"), k.ones(shape, "i32")];
  const name = "kiln_classifier";
  if (readsTokenTypes(model))
    return k
      .jit((i: k.Array, m: k.Array, t: k.Array) => [model.logits(params, i, m, { tokenTypeIds: t })], { name })
      .lower(ids, mask, k.zeros(shape, "i32"));
  return k.jit((i: k.Array, m: k.Array) => [model.logits(params, i, m)], { name }).lower(ids, mask);
}

export async function buildClassifierExport(opts: ExportOptions): Promise<BuiltExport> {
  // A classifier's directory holds its head: one without is incomplete, not a base model to put a fresh head on.
  const { model, params, notices } = await loadModel(opts.modelDir, { task: "sequence-classification", missingHead: "error" });
  const limit = maxLengthOf(model.config);
  const maxLength = opts.maxLength ?? Math.min(128, limit);
  if (maxLength < 1 || maxLength > limit)
    throw new OptionError({
      option: "maxLength",
      value: maxLength,
      why: `is outside 1..${limit}, the lengths this model's positions cover`,
      where: "exportModel",
    });
  const typed = readsTokenTypes(model);
  const bytes = onnxModel(
    (batch, length) => classifierProgram(model, params, batch, length),
    [LOGITS],
    {
      batch: opts.batch,
      maxLength,
      // Padding fills rows up to a traced length; the attention mask keeps it out of every real token's value.
      padId: typeof model.config.pad_token_id === "number" ? model.config.pad_token_id : 0,
      tokenTypes: typed,
      perRow: [LOGITS],
    },
    opts.producerVersion,
  );
  return { bytes, outputs: [LOGITS], maxLength, notices };
}
