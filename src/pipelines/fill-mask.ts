// fill-mask: the model's top-k guesses for each [MASK] in a text, in the shape Hugging Face's pipeline
// returns: [{ score, token, token_str, sequence }].
import * as k from "../core/index.js";
import type { MaskedLanguageModel, Params } from "../models/masked-lm.js";
import { maxSequenceLength } from "../models/config.js";
import { checkOptions } from "../core/check-options.js";
import { OptionError } from "../core/option-error.js";
import { checkModelTokenizer, type ModelTokenizerSources } from "./model-tokenizer-check.js";

/** What fill-mask needs from a tokenizer (src/text's Tokenizer provides it). */
export interface FillMaskTokenizer {
  readonly vocabSize: number;
  readonly maskId: number;
  readonly padId: number;
  encode(text: string, opts?: { addSpecialTokens?: boolean }): number[];
  decode(ids: readonly number[], opts?: { skipSpecialTokens?: boolean }): string;
}

/** One candidate for a masked position: its probability, token id, token text, and the filled-in sequence. */
export interface FillMaskResult {
  score: number;
  token: number;
  token_str: string;
  sequence: string;
}

/** Options of FillMaskPipeline.call: how many candidates per mask. */
export interface FillMaskOptions {
  /** Guesses per [MASK] (default 5). */
  topK?: number;
  /** A text with several [MASK]s gives one result list per [MASK] (Hugging Face's nested shape); without it, such a text is refused. */
  eachMask?: boolean;
}

const FILL_MASK_OPTIONS = ["topK", "eachMask"] as const;

/** Where the model and the tokenizer came from, for messages (e.g. their config.json and tokenizer.json). */
export type FillMaskSources = ModelTokenizerSources;

/** Sequences are padded up to a multiple of this, so texts of similar length share one compiled program. */
const LENGTH_BUCKET = 32;

/** Fills the mask token of a text with a masked LM's most likely tokens (transformers' fill-mask pipeline). */
export class FillMaskPipeline {
  private readonly forward;

  constructor(
    readonly model: MaskedLanguageModel,
    readonly params: Params,
    readonly tokenizer: FillMaskTokenizer,
    sources: FillMaskSources = {},
  ) {
    // RoBERTa counts positions from the pad id, and the masked LMs pad with it.
    checkModelTokenizer({
      pipeline: "fill-mask",
      sources,
      vocabSize: model.config.vocab_size,
      tokenizerVocabSize: tokenizer.vocabSize,
      ids: [
        ["mask", tokenizer.maskId],
        ["pad", tokenizer.padId],
      ],
      pad: { id: tokenizer.padId, modelId: model.config.pad_token_id },
    });
    // Logits at the masked rows only: the head runs on a handful of rows, not the whole sequence.
    this.forward = k.jit(
      (p: Params, ids: k.Array, mask: k.Array, rows: k.Array) => {
        const h = model.hidden(p, ids, mask);
        const picked = k.take(h.reshape([-1, h.shape[2]!]), rows, 0);
        return k.softmax(model.lmHead(p, picked).astype("f32"), -1);
      },
      { name: "fill_mask" },
    );
  }

  /** The guesses for the one [MASK] of a text, most likely first. */
  call(text: string, opts?: FillMaskOptions & { eachMask?: false }): Promise<FillMaskResult[]>;
  /** One result list per [MASK] of the text, in order. */
  call(text: string, opts: FillMaskOptions & { eachMask: true }): Promise<FillMaskResult[][]>;
  /** One result list per text (each with one [MASK]), in order. */
  call(texts: readonly string[], opts?: FillMaskOptions & { eachMask?: false }): Promise<FillMaskResult[][]>;
  async call(text: string | readonly string[], opts: FillMaskOptions = {}): Promise<FillMaskResult[] | FillMaskResult[][]> {
    checkOptions("fill-mask", opts, FILL_MASK_OPTIONS, { ints: ["topK"], positive: ["topK"], booleans: ["eachMask"] });
    if (Array.isArray(text)) {
      if (opts.eachMask)
        throw new OptionError({
          where: "fill-mask",
          option: "eachMask",
          value: true,
          why: "takes one text, not a list",
          fix: "Call fill-mask once per text with eachMask, or give a list of texts with one [MASK] each",
        });
      text.forEach((t, i) => checkText(t, `text[${i}]`));
      const results: FillMaskResult[][] = [];
      for (const t of text) results.push((await this.fill(t, opts.topK ?? 5, `text[${results.length}]`, false))[0]!);
      return results;
    }
    checkText(text, "text");
    const results = await this.fill(text, opts.topK ?? 5, "text", opts.eachMask ?? false);
    return opts.eachMask ? results : results[0]!;
  }

  /** One result list per [MASK]; more than one [MASK] only when `eachMask` allows it. */
  private async fill(text: string, topK: number, option: string, eachMask: boolean): Promise<FillMaskResult[][]> {
    const tok = this.tokenizer;
    const ids = tok.encode(text);
    const maskPositions = ids.flatMap((id, i) => (id === tok.maskId ? [i] : []));
    const maskText = tok.decode([tok.maskId], { skipSpecialTokens: false }) || "[MASK]";
    if (maskPositions.length === 0)
      throw new OptionError({
        where: "fill-mask",
        option,
        value: text,
        why: `has no mask token (id ${tok.maskId})`,
        fix: `Write it where a word should be predicted, e.g. "Goal of my life is to ${maskText}."`,
      });
    if (maskPositions.length > 1 && !eachMask)
      throw new OptionError({
        where: "fill-mask",
        option,
        value: text,
        why: `has ${maskPositions.length} mask tokens, and the result would be a list per mask`,
        fix: "Pass eachMask: true for one result list per mask, or leave one mask in the text",
      });
    const limit = maxSequenceLength(this.model.config);
    if (ids.length > limit)
      throw new OptionError({
        option: "text",
        value: text,
        why: `is ${ids.length} tokens long; this model takes at most ${limit}`,
        where: "fill-mask",
      });
    const len = Math.min(limit, Math.ceil(ids.length / LENGTH_BUCKET) * LENGTH_BUCKET);
    const padded = new Int32Array(len).fill(tok.padId),
      attn = new Int32Array(len);
    padded.set(ids);
    attn.fill(1, 0, ids.length);
    const probs = this.forward(
      this.params,
      k.array(padded, { shape: [1, len] }),
      k.array(attn, { shape: [1, len] }),
      k.array(Int32Array.from(maskPositions), { shape: [maskPositions.length] }),
    );
    const p = (await probs.data()) as Float32Array;
    const vocab = probs.shape[1]!;
    // As transformers' pipeline: with several masks, each sequence fills one and keeps the special
    // tokens, so the masks still open stay visible.
    const skipSpecialTokens = maskPositions.length === 1;
    const results = maskPositions.map((pos, m) => {
      const row = p.subarray(m * vocab, (m + 1) * vocab);
      return topIndices(row, topK).map((id) => {
        const filled = ids.slice();
        filled[pos] = id;
        return { score: row[id]!, token: id, token_str: tok.decode([id]), sequence: tok.decode(filled, { skipSpecialTokens }) };
      });
    });
    return results;
  }
}

function checkText(text: unknown, option: string): asserts text is string {
  if (typeof text !== "string")
    throw new OptionError({
      where: "fill-mask",
      option,
      value: text,
      why: "is not a string",
      fix: "Pass the text with a mask token in it, or a list of such texts",
    });
}

/** Indices of the k largest values, largest first (ties: lower index first). */
function topIndices(values: ArrayLike<number>, kTop: number): number[] {
  const idx: number[] = [];
  for (let i = 0; i < values.length; i++) {
    if (idx.length < kTop) {
      idx.push(i);
      idx.sort((a, b) => values[b]! - values[a]! || a - b);
    } else if (values[i]! > values[idx[kTop - 1]!]!) {
      idx[kTop - 1] = i;
      idx.sort((a, b) => values[b]! - values[a]! || a - b);
    }
  }
  return idx;
}
