// Trains the two merge-based tokenizers, each with the pipeline its family uses, and returns it as a
// Kiln tokenizer (tokenizer.json in Hugging Face's format plus roles):
// - "bpe": byte-level BPE as GPT-2, RoBERTa and Llama 3 have it (GPT-2's pre-tokenizer regex, every
//   byte in the alphabet, so no text is unknown), Kiln's `[CLS] $A [SEP]` template;
// - "wordpiece": BERT's (BertNormalizer without lowercasing, BertPreTokenizer, "##" continuations).
// Words are counted with the same normalizer and pre-tokenizer that encoding runs, then the merges are
// learned exactly as `tokenizers`' BpeTrainer / WordPieceTrainer learn them (./bpe-merges.ts).
import { BYTE_TO_CHAR } from "../pipeline/byte-chars.js";
import { AlignedText } from "../pipeline/aligned-text.js";
import { JsonPlace } from "../pipeline/component-json.js";
import { buildNormalizer } from "../pipeline/normalizers.js";
import { buildPreTokenizer } from "../pipeline/pre-tokenizers.js";
import { PipelineTokenizer } from "../pipeline-tokenizer.js";
import type { SpecialTokenRoles } from "../tokenizer.js";
import { learnBpe } from "./bpe-merges.js";
import { DEFAULT_ROLES, DEFAULT_SPECIAL_TOKENS, type TrainProgress } from "./unigram-trainer.js";

export type MergeModel = "bpe" | "wordpiece";

export interface MergeTrainOptions {
  /** Total vocabulary size, special tokens included. */
  vocabSize: number;
  /** Special tokens, given ids 0, 1, … in this order. Default [CLS] [SEP] <unk> <pad> [MASK]. */
  specialTokens?: readonly string[];
  roles?: Partial<SpecialTokenRoles>;
  /** Pairs seen fewer times are not merged. Default 2 for WordPiece (as `tokenizers`), 0 for BPE. */
  minFrequency?: number;
  /** At most this many characters in WordPiece's alphabet (the most frequent). Default 1000. */
  limitAlphabet?: number;
  onProgress?: (progress: TrainProgress) => void;
}

type Json = Record<string, unknown>;

function template(cls: string, sep: string, ids: Map<string, number>): Json {
  const special = (id: string, typeId: number): Json => ({ SpecialToken: { id, type_id: typeId } });
  const seq = (id: string, typeId: number): Json => ({ Sequence: { id, type_id: typeId } });
  return {
    type: "TemplateProcessing",
    single: [special(cls, 0), seq("A", 0), special(sep, 0)],
    pair: [special(cls, 0), seq("A", 0), special(sep, 0), seq("B", 1), special(sep, 1)],
    special_tokens: Object.fromEntries([cls, sep].map((t) => [t, { id: t, ids: [ids.get(t)!], tokens: [t] }])),
  };
}

function pipeline(model: MergeModel): { normalizer: Json | null; pre_tokenizer: Json; decoder: Json } {
  if (model === "bpe")
    return {
      normalizer: null,
      pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
      decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
    };
  return {
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: false },
    pre_tokenizer: { type: "BertPreTokenizer" },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
  };
}

/** Trains a BPE (byte-level) or WordPiece tokenizer on `lines`, one document each, streamed once. */
export async function trainMergeModel(
  model: MergeModel,
  lines: AsyncIterable<string> | Iterable<string>,
  opts: MergeTrainOptions,
): Promise<PipelineTokenizer> {
  const specialTokens = opts.specialTokens ?? DEFAULT_SPECIAL_TOKENS;
  const roles: SpecialTokenRoles = { ...DEFAULT_ROLES, ...opts.roles };
  if (!Number.isInteger(opts.vocabSize) || opts.vocabSize < 1)
    throw new Error(`vocab size must be a positive integer, got ${opts.vocabSize}`);
  for (const role of ["cls", "sep", "unk", "pad", "mask"] as const)
    if (!specialTokens.includes(roles[role]))
      throw new Error(
        `the ${role} token "${roles[role]}" is not among the special tokens (${specialTokens.join(" ")}); ` +
          `add it or name another ${role} token`,
      );
  const report = opts.onProgress ?? (() => {});
  const parts = pipeline(model);
  const normalize = buildNormalizer(parts.normalizer, new JsonPlace("(trainer)", "normalizer"));
  const preTokenize = buildPreTokenizer(parts.pre_tokenizer, new JsonPlace("(trainer)", "pre_tokenizer"));

  const counts = new Map<string, number>();
  let documents = 0,
    words = 0;
  for await (const line of lines) {
    for (const piece of preTokenize([normalize(AlignedText.from(line))])) {
      if (piece.length === 0) continue;
      counts.set(piece.text, (counts.get(piece.text) ?? 0) + 1);
      words++;
    }
    if (++documents % 256 === 0) report({ phase: "count", documents, words, distinctWords: counts.size });
  }
  report({ phase: "count", documents, words, distinctWords: counts.size });
  if (words === 0)
    throw new Error(`the corpus is empty: ${documents} document${documents === 1 ? "" : "s"} read, none with any text to learn from`);

  const learned = learnBpe(counts, {
    vocabSize: opts.vocabSize,
    specialTokens,
    minFrequency: opts.minFrequency ?? (model === "wordpiece" ? 2 : 0),
    ...(model === "bpe" ? { initialAlphabet: BYTE_TO_CHAR } : { limitAlphabet: opts.limitAlphabet ?? 1000, continuingSubwordPrefix: "##" }),
  });
  const ids = new Map(learned.vocab.map((t, i) => [t, i]));
  // A pair merged twice (`tokenizers` can) keeps its last rank, as its saved files do.
  const lastRank = new Map<string, number>();
  learned.merges.forEach(([a, b], i) => lastRank.set(`${a} ${b}`, i));
  const merges = learned.merges.filter(([a, b], i) => lastRank.get(`${a} ${b}`) === i);
  const modelJson: Json =
    model === "bpe"
      ? {
          type: "BPE",
          dropout: null,
          unk_token: roles.unk,
          continuing_subword_prefix: null,
          end_of_word_suffix: null,
          fuse_unk: false,
          byte_fallback: false,
          ignore_merges: false,
          vocab: Object.fromEntries(ids),
          merges,
        }
      : {
          type: "WordPiece",
          unk_token: roles.unk,
          continuing_subword_prefix: "##",
          max_input_chars_per_word: 100,
          vocab: Object.fromEntries(ids),
        };
  const doc: Json = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: specialTokens.map((content) => ({
      id: ids.get(content)!,
      content,
      single_word: false,
      // The mask token swallows the space before it, so "is to [MASK]." reads as in fill-mask.
      lstrip: content === roles.mask,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: parts.normalizer,
    pre_tokenizer: parts.pre_tokenizer,
    post_processor: template(roles.cls, roles.sep, ids),
    decoder: parts.decoder,
    model: modelJson,
  };
  report({ phase: "done", vocabSize: learned.vocab.length });
  return new PipelineTokenizer(JSON.stringify(doc, null, 1) + "\n", roles, `(trained ${model})`);
}
