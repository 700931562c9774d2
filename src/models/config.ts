// Hugging Face `config.json` for the BERT family: read, validated with errors that name the file and
// field, written back exactly as Python `transformers` expects it.
import { readFile } from "node:fs/promises";
import type { PresetTokenizerIds } from "./spec.js";

/** The masked LM families: "roberta" or "bert". */
export type ModelType = "roberta" | "bert";

/** A masked LM's Hugging Face config.json (RoBERTa or BERT), with the fields Kiln reads. */
export interface MlmConfig {
  model_type: ModelType;
  architectures: string[];
  vocab_size: number;
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  intermediate_size: number;
  hidden_act: string;
  hidden_dropout_prob: number;
  attention_probs_dropout_prob: number;
  max_position_embeddings: number;
  type_vocab_size: number;
  layer_norm_eps: number;
  initializer_range: number;
  pad_token_id: number;
  /** Written for `transformers` only (BERT configs from transformers have null here). */
  bos_token_id?: number | null;
  eos_token_id?: number | null;
  [extra: string]: unknown;
}

/** Sizes of tensors: zero would build an empty weight that only fails later, inside the runtime's shape inference. */
const SIZE_FIELDS = [
  "vocab_size",
  "hidden_size",
  "num_hidden_layers",
  "num_attention_heads",
  "intermediate_size",
  "max_position_embeddings",
  "type_vocab_size",
] as const;

/** Checks a config object; `where` names its source in errors (a file path or "preset mlm-small"). */
export function validateConfig(raw: Record<string, unknown>, where: string): MlmConfig {
  const fail = (msg: string): never => {
    throw new Error(`${where}: ${msg}`);
  };
  const type = raw.model_type;
  if (type !== "roberta" && type !== "bert") fail(`model_type must be "roberta" or "bert", got ${JSON.stringify(type)}`);
  for (const f of SIZE_FIELDS) {
    const v = raw[f];
    if (!Number.isInteger(v) || (v as number) < 1) fail(`"${f}" must be a positive integer, got ${JSON.stringify(v)}`);
  }
  if (!Number.isInteger(raw.pad_token_id) || (raw.pad_token_id as number) < 0)
    fail(`"pad_token_id" must be a non-negative integer, got ${JSON.stringify(raw.pad_token_id)}`);
  const c = {
    architectures: [type === "roberta" ? "RobertaForMaskedLM" : "BertForMaskedLM"],
    hidden_act: "gelu",
    hidden_dropout_prob: 0.1,
    attention_probs_dropout_prob: 0.1,
    layer_norm_eps: 1e-12,
    initializer_range: 0.02,
    ...raw,
  } as MlmConfig;
  // Settings a transformers config may carry that Kiln's encoder cannot honour: refused rather than ignored.
  if (c.is_decoder === true || c.add_cross_attention === true)
    fail(`is_decoder/add_cross_attention is set: Kiln runs bidirectional encoders only (set both to false, or use a masked-LM checkpoint)`);
  if (c.tie_word_embeddings === false)
    fail(`tie_word_embeddings is false: Kiln ties the decoder to the word embeddings; untied output embeddings are not supported`);
  if (c.position_embedding_type !== undefined && c.position_embedding_type !== "absolute")
    fail(`position_embedding_type "${String(c.position_embedding_type)}" is not supported (only "absolute")`);
  if (c.hidden_size % c.num_attention_heads !== 0)
    fail(`hidden_size ${c.hidden_size} is not a multiple of num_attention_heads ${c.num_attention_heads}`);
  if (!["gelu", "relu", "tanh"].includes(c.hidden_act)) fail(`hidden_act "${c.hidden_act}" is not supported (gelu, relu, tanh)`);
  if (!(typeof c.layer_norm_eps === "number" && c.layer_norm_eps > 0))
    fail(`"layer_norm_eps" must be a positive number, got ${JSON.stringify(c.layer_norm_eps)}`);
  if (!(typeof c.initializer_range === "number" && c.initializer_range >= 0))
    fail(`"initializer_range" must be a non-negative number, got ${JSON.stringify(c.initializer_range)}`);
  for (const f of ["hidden_dropout_prob", "attention_probs_dropout_prob"] as const) {
    if (!(c[f] >= 0 && c[f] < 1)) fail(`"${f}" must be in [0, 1), got ${c[f]}`);
  }
  if (c.pad_token_id >= c.vocab_size) fail(`pad_token_id ${c.pad_token_id} is outside the vocabulary (vocab_size ${c.vocab_size})`);
  return c;
}

/** A config.json as a plain object, with errors that name the file. */
export async function readJsonObject(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new Error(`cannot read model config ${path}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path} is not valid JSON: ${(e as Error).message}`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new Error(`${path}: expected a JSON object`);
  return raw as Record<string, unknown>;
}

/** Reads and validates a masked LM's config.json. */
export async function readConfig(path: string): Promise<MlmConfig> {
  return validateConfig(await readJsonObject(path), path);
}

/** The positions a model needs for sequences of `maxLength`: RoBERTa counts from pad_token_id + 1. */
export function positionsNeeded(type: ModelType, maxLength: number, padId: number): number {
  return type === "roberta" ? maxLength + padId + 1 : maxLength;
}

/** The special token ids and vocabulary size a masked LM preset takes from its tokenizer. */
export interface TokenizerIds {
  vocabSize: number;
  padId: number;
  clsId: number;
  sepId: number;
}

/**
 * A masked-LM preset's config with the vocabulary and special ids taken from the tokenizer (the reference's
 * RoBERTa pad id 1 would collide with [SEP]; the tokenizer's own pad id is the right one).
 */
export function maskedPresetConfig(
  fields: Readonly<Record<string, unknown>>,
  tok: PresetTokenizerIds,
  len: number,
  where: string,
): MlmConfig {
  const { padId, clsId, sepId } = tok;
  if (typeof padId !== "number" || clsId === undefined || sepId === undefined)
    throw new Error(`${where}: a masked LM's preset needs the tokenizer's padId, clsId and sepId`);
  return validateConfig(
    {
      ...fields,
      vocab_size: tok.vocabSize,
      pad_token_id: padId,
      bos_token_id: clsId,
      eos_token_id: sepId,
      max_position_embeddings: positionsNeeded(fields.model_type as ModelType, len, padId),
    },
    where,
  );
}

/** The longest sequence a config's position table allows. */
export function maxSequenceLength(c: MlmConfig): number {
  return c.model_type === "roberta" ? c.max_position_embeddings - c.pad_token_id - 1 : c.max_position_embeddings;
}
