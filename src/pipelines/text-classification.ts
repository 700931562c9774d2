// text-classification: a classifier's labels and scores for each text (or pair of texts), in the shape
// transformers.js' pipeline returns: [{ label, score }], best first. Scores are as transformers' pipeline
// makes them: softmax over the classes, a sigmoid per class for multi-label models (or one class), the
// raw logits for regression.
import * as k from "../core/index.js";
import { checkOptions } from "../core/check-options.js";
import { OptionError } from "../core/option-error.js";
import { checkModelTokenizer, type ModelTokenizerSources } from "./model-tokenizer-check.js";
import type { Params } from "../models/language-model.js";
import { maxLengthOf } from "../models/registry.js";
import type { SequenceClassifier } from "../models/classification/model.js";

/** What text classification needs from a tokenizer (src/text's Tokenizer provides it). */
export interface ClassificationTokenizer {
  readonly vocabSize: number;
  readonly clsId: number;
  readonly sepId: number;
  readonly padId: number;
  /** A text, or a text and its pair, in the tokenizer's template, with type ids (src/text's Tokenizer.encodePair). */
  encodePair(text: string, pair: string | undefined): { ids: number[]; typeIds: number[] };
}

/** One class of a text-classification result: its label and score, as transformers.js returns them. */
export interface ClassificationResult {
  label: string;
  score: number;
}

/** Two texts classified together (a premise and its hypothesis, a question and its answer). */
export interface TextPair {
  text: string;
  textPair: string;
}

/**
 * A text, or two texts classified together: `{ text, textPair }`, or `[text, pair]` inside a list (a list
 * of two strings on its own is two texts).
 */
export type ClassificationInput = string | TextPair | readonly [string, string];

/** Options of a text-classification call: how many classes to return (topK; null for all). */
export interface TextClassificationOptions {
  /** Classes per text, best first (default 1); null for every class. */
  topK?: number | null;
}

/** Where the model and the tokenizer came from, for messages. */
export type ClassificationSources = ModelTokenizerSources;

/** Sequences are padded up to a multiple of this, so batches of similar length share one compiled program. */
const LENGTH_BUCKET = 32;

type ScoreFunction = "softmax" | "sigmoid" | "none";

/** transformers' rule: regression → raw; multi-label or one class → sigmoid; otherwise softmax. */
function scoreFunction(model: SequenceClassifier): ScoreFunction {
  const { problem_type, num_labels } = model.config;
  if (problem_type === "regression") return "none";
  if (problem_type === "multi_label_classification" || num_labels === 1) return "sigmoid";
  return "softmax";
}

/** Classifies texts and sentence pairs with a sequence-classification model: [{ label, score }]. */
export class TextClassificationPipeline {
  private readonly forward;
  private readonly maxLength: number;
  /** Whether the model reads token types (BERT's two); RoBERTa and the decoders have one, and ignore the template's. */
  private readonly typedPairs: boolean;

  constructor(
    readonly model: SequenceClassifier,
    readonly params: Params,
    readonly tokenizer: ClassificationTokenizer,
    sources: ClassificationSources = {},
  ) {
    const c = model.config;
    checkModelTokenizer({
      pipeline: "text-classification",
      sources,
      vocabSize: c.vocab_size,
      tokenizerVocabSize: tokenizer.vocabSize,
      ids: [
        ["cls", tokenizer.clsId],
        ["sep", tokenizer.sepId],
        ["pad", tokenizer.padId],
      ],
      // RoBERTa counts positions from its pad id: padding with another id would move every position.
      pad: c.model_type === "roberta" ? { id: tokenizer.padId, modelId: c.pad_token_id } : undefined,
    });
    this.maxLength = maxLengthOf(model.config);
    this.typedPairs = typeof model.config.type_vocab_size === "number" && model.config.type_vocab_size > 1;
    const fn = scoreFunction(model);
    this.forward = k.jit(
      (p: Params, ids: k.Array, mask: k.Array, types: k.Array) => {
        const logits = model.logits(p, ids, mask, this.typedPairs ? { tokenTypeIds: types } : {});
        return fn === "softmax" ? k.softmax(logits, -1) : fn === "sigmoid" ? k.sigmoid(logits) : logits;
      },
      { name: "text_classification" },
    );
  }

  /** The best classes of one text or pair, best first. */
  call(input: string | TextPair, opts?: TextClassificationOptions): Promise<ClassificationResult[]>;
  /** For several: with topK 1 (the default) one best class per input; otherwise one list per input. */
  call(
    inputs: readonly ClassificationInput[],
    opts?: TextClassificationOptions,
  ): Promise<ClassificationResult[] | ClassificationResult[][]>;
  async call(
    input: ClassificationInput | readonly ClassificationInput[],
    opts: TextClassificationOptions = {},
  ): Promise<ClassificationResult[] | ClassificationResult[][]> {
    checkOptions("text-classification", opts, ["topK"], {});
    const n = this.model.config.num_labels;
    const topK = opts.topK === null ? n : (opts.topK ?? 1);
    if (!Number.isInteger(topK) || topK < 1)
      throw new OptionError({
        where: "text-classification",
        option: "topK",
        value: opts.topK,
        why: "must be a positive integer or null",
        fix: `Pass 1 for the best class, up to ${n} for more, or null for all ${n}`,
      });
    const many = Array.isArray(input);
    const inputs = (many ? input : [input]) as readonly ClassificationInput[];
    if (inputs.length === 0)
      throw new OptionError({
        where: "text-classification",
        option: "texts",
        value: input,
        why: "is empty",
        fix: "Pass at least one text",
      });
    const rows = inputs.map((x, i) => this.encode(x, many ? `texts[${i}]` : "text"));
    const scores = await this.score(rows);
    const labels = this.model.config.id2label;
    const results = scores.map((row) =>
      topIndices(row, Math.min(topK, n)).map((c) => ({ label: labels[String(c)] ?? `LABEL_${c}`, score: row[c]! })),
    );
    // transformers.js' shape: with top_k 1 a flat list (one per input), otherwise a list per input.
    if (!many) return results[0]!;
    return topK === 1 ? results.map((r) => r[0]!) : results;
  }

  /** Token ids and token types of one input, laid out by the tokenizer's template ([CLS] a [SEP] b [SEP] for BERT's). */
  private encode(x: ClassificationInput, option: string): { ids: number[]; types: number[] } {
    if (typeof x !== "string" && !isPair(x))
      throw new OptionError({
        where: "text-classification",
        option,
        value: x,
        why: "is neither a text nor a pair of texts",
        fix: "Pass a string, { text, textPair } for a pair, or a list of these (a pair in a list may be [text, pair])",
      });
    const [first, second] =
      typeof x === "string" ? [x, undefined] : Array.isArray(x) ? x : [(x as TextPair).text, (x as TextPair).textPair];
    const { ids, typeIds: types } = this.tokenizer.encodePair(first, second);
    if (ids.length > this.maxLength)
      throw new OptionError({
        where: "text-classification",
        option,
        value: x,
        why: `is ${ids.length} tokens long; this model takes at most ${this.maxLength}`,
        fix: "Shorten the text",
      });
    return { ids, types };
  }

  /** The scores of padded rows, one array of num_labels per row. */
  private async score(rows: { ids: number[]; types: number[] }[]): Promise<Float32Array[]> {
    const longest = Math.max(...rows.map((r) => r.ids.length));
    const len = Math.min(this.maxLength, Math.ceil(longest / LENGTH_BUCKET) * LENGTH_BUCKET);
    const b = rows.length;
    const ids = new Int32Array(b * len).fill(this.tokenizer.padId),
      mask = new Int32Array(b * len),
      types = new Int32Array(b * len);
    rows.forEach((r, i) => {
      ids.set(r.ids, i * len);
      types.set(r.types, i * len);
      mask.fill(1, i * len, i * len + r.ids.length);
    });
    const shape = [b, len];
    const out = this.forward(this.params, k.array(ids, { shape }), k.array(mask, { shape }), k.array(types, { shape }));
    const data = (await out.data()) as Float32Array;
    const n = this.model.config.num_labels;
    return rows.map((_, i) => data.slice(i * n, (i + 1) * n));
  }
}

function isPair(x: unknown): x is TextPair | readonly [string, string] {
  if (Array.isArray(x)) return x.length === 2 && typeof x[0] === "string" && typeof x[1] === "string";
  const p = x as TextPair | null;
  return p !== null && typeof p === "object" && typeof p.text === "string" && typeof p.textPair === "string";
}

/** Indices of the k largest values, largest first (ties: lower index first). */
function topIndices(values: ArrayLike<number>, kTop: number): number[] {
  return Array.from({ length: values.length }, (_, i) => i)
    .sort((a, b) => values[b]! - values[a]! || a - b)
    .slice(0, kTop);
}
