// Kiln's tokenizer: added (special) tokens cut out of the raw text, then NFKC and quote normalization,
// the Metaspace pre-tokenizer, the Unigram model per word, and the `[CLS] $A [SEP]` template (a pair's,
// `[CLS] $A [SEP] $B:1 [SEP]:1`, run by the post-processor of the tokenizer.json it saves). Every step
// mirrors the tokenizer.json Kiln writes, so Hugging Face `tokenizers` loading that file gives the same
// ids; tests and the benchmark hold the two sides to that.
import { AddedTokenSplitter, type AddedToken } from "./added-tokens.js";
import { forEachWordBody, METASPACE } from "./metaspace.js";
import { normalizeText } from "./normalizer.js";
import { UnigramModel } from "./unigram-model.js";
import { OptionError } from "../core/option-error.js";
import { JsonPlace } from "./pipeline/component-json.js";
import { idsEncoding, truncatePair } from "./pipeline/encoding.js";
import { buildPostProcessor, type PostProcessor } from "./pipeline/post-processors.js";
import { postProcessorJson } from "./tokenizer-json.js";

/** Options of encode. */
export interface EncodeOptions {
  /** Wrap the ids in the template's special tokens ([CLS] … [SEP], or [CLS] … for a causal template). Default true. */
  addSpecialTokens?: boolean;
}

/** Options of encodePair. */
export interface EncodePairOptions extends EncodeOptions {
  /**
   * The most tokens the result holds, special tokens included. Longer input is cut as `tokenizers`
   * truncates ("longest_first" from the end: a pair loses tokens from its longer text first); the special
   * tokens always stay. Default: no limit.
   */
  maxLength?: number;
}

/** A text, or a text and its pair, as token ids in the tokenizer's template, with each token's type (segment) id. */
export interface PairEncoding {
  ids: number[];
  /** 0 for the first text's part of the template, the template's type (1 in BERT's) for the pair's. */
  typeIds: number[];
  /** Whether tokens were cut to fit maxLength. */
  truncated: boolean;
}

/** Throws an OptionError, in encodePair's words, for a maxLength that is not a positive integer. */
export function checkPairOptions(opts: EncodePairOptions): void {
  const m = opts.maxLength;
  if (m !== undefined && !(Number.isInteger(m) && m >= 1))
    throw new OptionError({
      where: "encodePair",
      option: "maxLength",
      value: m,
      why: "must be a positive integer (tokens kept, special tokens included)",
      fix: "Pass the model's longest input, e.g. maxLength: 128, or leave it out for no limit",
    });
}

/** Options of decode. */
export interface DecodeOptions {
  /** Leave special tokens out of the text. Default false, as in `tokenizers`. */
  skipSpecialTokens?: boolean;
}

/** A tokenizer: text to token ids and back, with its special tokens' ids. */
export interface Tokenizer {
  readonly vocabSize: number;
  readonly unkId: number;
  readonly clsId: number;
  readonly sepId: number;
  readonly padId: number;
  readonly maskId: number;
  /** Ids of all special tokens. */
  readonly specialIds: ReadonlySet<number>;
  encode(text: string, opts?: EncodeOptions): number[];
  encodeBatch(texts: string[], opts?: EncodeOptions): number[][];
  /**
   * A text and its pair (sentence-pair classification: a premise and its hypothesis), laid out by the
   * tokenizer's pair template (its tokenizer.json post-processor: `[CLS] A [SEP] B [SEP]` with B of type 1
   * for BERT, `<s> A </s></s> B </s>` all of type 0 for RoBERTa), with type ids, as `tokenizers`
   * `encode(text, pair)` gives them; without a pair, the single text's template. Cut to maxLength if given.
   */
  encodePair(text: string, pair: string | undefined, opts?: EncodePairOptions): PairEncoding;
  decode(ids: readonly number[], opts?: DecodeOptions): string;
  idToToken(id: number): string | undefined;
  tokenToId(token: string): number | undefined;
}

/** Which special token plays which part; each names the content of one of the added tokens. */
export interface SpecialTokenRoles {
  cls: string;
  sep: string;
  unk: string;
  pad: string;
  mask: string;
}

/** Everything that defines a Kiln Unigram tokenizer; tokenizer.json is this, spelled Hugging Face's way. */
export interface UnigramTokenizerSpec {
  /** The model vocabulary: [piece, score], the id being the index. Special tokens sit at their ids. */
  vocab: ReadonlyArray<readonly [string, number]>;
  addedTokens: readonly AddedToken[];
  roles: SpecialTokenRoles;
  /**
   * The special tokens encode() adds: "classify" wraps the text as `[CLS] $A [SEP]` (masked LMs, and the
   * training data of causal LMs, which learn where a text ends); "causal" puts only `[CLS]` (the bos token)
   * before it, as transformers' tokenizers of decoder models do, so that `tok(prompt)` in Python ends
   * where the prompt ends. Default "classify".
   */
  template?: SpecialTokenTemplate;
}

export type SpecialTokenTemplate = "classify" | "causal";

/**
 * What every Tokenizer does alike: it reads its special tokens' ids by role once, through `roleId` (which
 * throws, in the words of the format it reads, for a role no added token plays), and encodes a batch text by text.
 */
export abstract class TokenizerBase implements Tokenizer {
  abstract readonly vocabSize: number;
  readonly unkId: number;
  readonly clsId: number;
  readonly sepId: number;
  readonly padId: number;
  readonly maskId: number;
  readonly specialIds: ReadonlySet<number>;

  protected constructor(addedTokens: readonly AddedToken[], roleId: (role: keyof SpecialTokenRoles) => number) {
    this.unkId = roleId("unk");
    this.clsId = roleId("cls");
    this.sepId = roleId("sep");
    this.padId = roleId("pad");
    this.maskId = roleId("mask");
    this.specialIds = new Set(addedTokens.filter((t) => t.special).map((t) => t.id));
  }

  abstract encode(text: string, opts?: EncodeOptions): number[];
  abstract encodePair(text: string, pair: string | undefined, opts?: EncodePairOptions): PairEncoding;
  abstract decode(ids: readonly number[], opts?: DecodeOptions): string;
  abstract idToToken(id: number): string | undefined;
  abstract tokenToId(token: string): number | undefined;

  encodeBatch(texts: string[], opts: EncodeOptions = {}): number[][] {
    return texts.map((text) => this.encode(text, opts));
  }
}

// Words seen again are looked up rather than segmented again; the cap bounds memory on huge corpora.
const WORD_CACHE_ENTRIES = 200_000;
const WORD_CACHE_MAX_LENGTH = 256;

/** A Unigram (SentencePiece-style) tokenizer, read from and written as Hugging Face tokenizer.json. */
export class UnigramTokenizer extends TokenizerBase {
  readonly spec: UnigramTokenizerSpec;
  readonly vocabSize: number;
  private readonly addsSep: boolean;
  /** The template of the saved tokenizer.json (its post-processor), which lays out pairs and their type ids. */
  private readonly template: PostProcessor;
  private readonly model: UnigramModel;
  private readonly splitter: AddedTokenSplitter;
  private readonly addedById: Map<number, AddedToken>;
  private readonly addedByContent: Map<string, AddedToken>;
  /** Word body (the text after its '▁') → its ids: one id as a number, several as an array. */
  private readonly wordCache = new Map<string, number | number[]>();

  constructor(spec: UnigramTokenizerSpec) {
    const addedByContent = new Map(spec.addedTokens.map((t) => [t.content, t]));
    super(spec.addedTokens, (role) => {
      const token = addedByContent.get(spec.roles[role]);
      if (!token) throw new Error(`the ${role} token "${spec.roles[role]}" is not one of the tokenizer's special tokens`);
      return token.id;
    });
    this.spec = spec;
    this.addedById = new Map(spec.addedTokens.map((t) => [t.id, t]));
    this.addedByContent = addedByContent;
    this.model = new UnigramModel(spec.vocab, this.unkId);
    this.vocabSize = this.model.size;
    this.splitter = new AddedTokenSplitter(spec.addedTokens);
    this.addsSep = (spec.template ?? "classify") === "classify";
    const [cls, sep] = [spec.roles.cls, spec.roles.sep].map((c) => addedByContent.get(c)!);
    this.template = buildPostProcessor(
      postProcessorJson(cls!, sep!, spec.template ?? "classify"),
      new JsonPlace("the tokenizer's template", "post_processor"),
    )!;
  }

  encodePair(text: string, pair: string | undefined, opts: EncodePairOptions = {}): PairEncoding {
    checkPairOptions(opts);
    const addSpecialTokens = opts.addSpecialTokens ?? true;
    const plain = (t: string, typeId: number) => {
      const ids = this.encode(t, { addSpecialTokens: false });
      return idsEncoding(
        ids,
        ids.map((id) => this.idToToken(id) ?? ""),
        typeId,
      );
    };
    let a = plain(text, 0);
    let b = pair === undefined ? undefined : plain(pair, 1);
    const length = a.ids.length + (b?.ids.length ?? 0);
    let truncated = false;
    if (opts.maxLength !== undefined) {
      const added = addSpecialTokens ? this.template.added(b !== undefined) : 0;
      const budget = Math.max(0, opts.maxLength - added);
      truncated = length > budget;
      if (truncated) [a, b] = truncatePair(a, b, budget, { strategy: "LongestFirst", direction: "Right" });
    }
    const joined = this.template.process(a, b, addSpecialTokens);
    return { ids: joined.ids, typeIds: joined.typeIds, truncated };
  }

  encode(text: string, opts: EncodeOptions = {}): number[] {
    const addSpecialTokens = opts.addSpecialTokens ?? true;
    const ids: number[] = [];
    if (addSpecialTokens) ids.push(this.clsId);
    this.splitter.split(
      text,
      (plain) => this.encodePlain(plain, ids),
      (id) => ids.push(id),
    );
    if (addSpecialTokens && this.addsSep) ids.push(this.sepId);
    return ids;
  }

  /** Splits text that holds no added token into pieces, as the Unigram model sees it. */
  private encodePlain(plain: string, ids: number[]): void {
    const text = normalizeText(plain);
    forEachWordBody(text, (start, end) => this.encodeWord(text.slice(start, end), ids));
  }

  private encodeWord(body: string, ids: number[]): void {
    const cached = this.wordCache.get(body);
    if (typeof cached === "number") {
      ids.push(cached);
      return;
    }
    if (cached !== undefined) {
      for (let i = 0; i < cached.length; i++) ids.push(cached[i]);
      return;
    }
    const first = ids.length;
    this.model.encodeWord(METASPACE + body, ids);
    if (body.length < WORD_CACHE_MAX_LENGTH && this.wordCache.size < WORD_CACHE_ENTRIES) {
      // `body` is a slice of its line, and V8 keeps a slice's whole parent string alive: cache a copy so
      // the cache holds words, not every line that brought a new one.
      const key = (body + " ").slice(0, -1);
      this.wordCache.set(key, ids.length - first === 1 ? ids[first] : ids.slice(first));
    }
  }

  /** Ids back to text the way `tokenizers` decodes: ids outside the vocabulary are dropped. */
  decode(ids: readonly number[], opts: DecodeOptions = {}): string {
    const skipSpecial = opts.skipSpecialTokens ?? false;
    let text = "";
    let first = true;
    for (const id of ids) {
      const token = this.idToToken(id);
      if (token === undefined) continue;
      if (skipSpecial && this.addedByContent.get(token)?.special) continue;
      // Metaspace decoding: '▁' reads as a space, except in the first token, where it was prepended.
      text += first ? token.replaceAll(METASPACE, "") : token.replaceAll(METASPACE, " ");
      first = false;
    }
    return text;
  }

  idToToken(id: number): string | undefined {
    return this.addedById.get(id)?.content ?? this.model.pieces[id];
  }

  tokenToId(token: string): number | undefined {
    return this.addedByContent.get(token)?.id ?? this.model.idOfPiece(token);
  }
}
