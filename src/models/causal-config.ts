// Checks shared by the decoder-only models' `config.json` validators (llama/config.ts, gpt2/config.ts):
// errors that name the file and field; and the ids a causal preset takes from its tokenizer.
import type { CausalLmConfig } from "./causal-lm.js";
import type { PresetTokenizerIds } from "./spec.js";
import { ACTIVATIONS } from "../nn/layers.js";

export type Fail = (msg: string) => never;

export function failAt(where: string): Fail {
  return (msg) => {
    throw new Error(`${where}: ${msg}`);
  };
}

export function positiveInts(raw: Record<string, unknown>, fields: readonly string[], fail: Fail): void {
  for (const f of fields) {
    const v = raw[f];
    if (!Number.isInteger(v) || (v as number) < 1) fail(`"${f}" must be a positive integer, got ${JSON.stringify(v)}`);
  }
}

export function probabilities(c: Record<string, unknown>, fields: readonly string[], fail: Fail): void {
  for (const f of fields) {
    const v = c[f];
    if (!(typeof v === "number" && v >= 0 && v < 1)) fail(`"${f}" must be in [0, 1), got ${JSON.stringify(v)}`);
  }
}

export function positive(c: Record<string, unknown>, f: string, fail: Fail): void {
  if (!(typeof c[f] === "number" && (c[f] as number) > 0)) fail(`"${f}" must be a positive number, got ${JSON.stringify(c[f])}`);
}

export function booleans(c: Record<string, unknown>, fields: readonly string[], fail: Fail): void {
  for (const f of fields) if (typeof c[f] !== "boolean") fail(`"${f}" must be true or false, got ${JSON.stringify(c[f])}`);
}

/** bos/eos/pad ids: null, or ids inside the vocabulary (eos may be a list, as transformers allows). */
export function tokenIds(c: CausalLmConfig, fail: Fail): void {
  const check = (field: string, v: unknown) => {
    if (v === null || v === undefined) return;
    if (!Number.isInteger(v) || (v as number) < 0 || (v as number) >= c.vocab_size)
      fail(`"${field}" must be null or a token id in [0, ${c.vocab_size}) (vocab_size), got ${JSON.stringify(v)}`);
  };
  check("bos_token_id", c.bos_token_id);
  check("pad_token_id", c.pad_token_id);
  if (Array.isArray(c.eos_token_id)) c.eos_token_id.forEach((v) => check("eos_token_id", v));
  else check("eos_token_id", c.eos_token_id);
}

/**
 * attention_block_size (Kiln's field, not transformers'): null/absent, or a positive whole number, with no
 * dropout on the attention probabilities (`dropoutField`): blockwise attention never builds them whole.
 */
export function attentionBlockSize(c: Record<string, unknown>, dropoutField: string, fail: Fail): void {
  const n = c.attention_block_size;
  if (n === null || n === undefined) return;
  if (!(Number.isInteger(n) && (n as number) > 0))
    fail(`"attention_block_size" must be null or a positive integer, got ${JSON.stringify(n)}`);
  if ((c[dropoutField] as number) > 0)
    fail(
      `"attention_block_size" ${n} (blockwise attention) cannot apply ${dropoutField} ${c[dropoutField]}: ` +
        `set ${dropoutField} to 0 or attention_block_size to null`,
    );
}

export function activation(c: Record<string, unknown>, field: string, fail: Fail): void {
  const v = c[field];
  if (typeof v !== "string" || !ACTIVATIONS[v])
    fail(`"${field}" ${JSON.stringify(v)} is not supported (${Object.keys(ACTIVATIONS).join(", ")})`);
}

/** The vocabulary and special ids of a causal preset: bos/eos from the tokenizer's bos/eos or cls/sep. */
export function causalPresetIds(tok: PresetTokenizerIds): Record<string, unknown> {
  return {
    vocab_size: tok.vocabSize,
    bos_token_id: tok.bosId ?? tok.clsId ?? null,
    eos_token_id: tok.eosId ?? tok.sepId ?? null,
    pad_token_id: tok.padId ?? null,
  };
}

/** The tokenizer ids a causal preset takes. @deprecated the tokenizer ids any preset takes: PresetTokenizerIds. */
export type CausalTokenizerIds = PresetTokenizerIds;
