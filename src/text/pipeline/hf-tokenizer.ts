// Any Hugging Face tokenizer.json, run the way `tokenizers` runs it: added tokens cut out of the raw
// text, then per stretch the normalizer, the pre-tokenizer and the model (WordPiece, BPE, WordLevel,
// Unigram), then truncation, the post-processor (special tokens and type ids, for one sequence or a
// pair) and padding; decoding through the file's decoder. Ids, type ids, offsets and decoded text are
// `tokenizers`' (test/interop/hf-tokenizers.test.ts holds them to it); offsets are UTF-16 indices into
// the input (`text.slice(start, end)`), where `tokenizers` counts characters.
import { AddedTokenSplitter, type AddedToken } from "../added-tokens.js";
import { AlignedText } from "./aligned-text.js";
import { intField, isRecord, JsonPlace, objectAt, TokenizerFileError, type JsonObject } from "./component-json.js";
import { buildDecoder, type Decoder } from "./decoders.js";
import { concatEncodings, emptyEncoding, truncatePair, type Encoding, type PairTruncation } from "./encoding.js";
import { buildModel } from "./models.js";
import type { WordModel } from "./word-model.js";
import { buildNormalizer, type Normalizer } from "./normalizers.js";
import { buildPostProcessor, type PostProcessor } from "./post-processors.js";
import { buildPreTokenizer, type PreTokenizer } from "./pre-tokenizers.js";

export interface HfEncodeOptions {
  /** Add the post-processor's special tokens. Default true. */
  addSpecialTokens?: boolean;
  /**
   * The most tokens the encoding holds, special tokens included, in place of the file's truncation
   * "max_length" (its strategy and direction kept; "LongestFirst" from the end where the file sets none),
   * as transformers' `tokenizer(text, pair, truncation=True, max_length=N)`.
   */
  maxLength?: number;
}

export interface HfDecodeOptions {
  /** Leave special added tokens out. Default false, as in `tokenizers`. */
  skipSpecialTokens?: boolean;
}

interface Truncation extends PairTruncation {
  maxLength: number;
}

interface Padding {
  fixed: number | undefined;
  multipleOf: number | undefined;
  direction: "Right" | "Left";
  padId: number;
  padTypeId: number;
  padToken: string;
}

/** Where the file sets no truncation and a caller gives a maxLength: `tokenizers`' defaults. */
const DEFAULT_TRUNCATION: PairTruncation = { strategy: "LongestFirst", direction: "Right" };

function parseTruncation(v: unknown, place: JsonPlace): Truncation | undefined {
  if (v === null || v === undefined) return undefined;
  const o = objectAt(v, place);
  const strategy = o.strategy ?? "LongestFirst";
  if (strategy !== "LongestFirst" && strategy !== "OnlyFirst" && strategy !== "OnlySecond")
    place.in("strategy").fail(`is ${JSON.stringify(strategy)}, expected "LongestFirst", "OnlyFirst" or "OnlySecond"`);
  const direction = o.direction ?? "Right";
  if (direction !== "Right" && direction !== "Left")
    place.in("direction").fail(`is ${JSON.stringify(direction)}, expected "Right" or "Left"`);
  return {
    maxLength: intField(o, "max_length", place),
    strategy: strategy as Truncation["strategy"],
    direction: direction as "Right" | "Left",
  };
}

function parsePadding(v: unknown, place: JsonPlace): Padding | undefined {
  if (v === null || v === undefined) return undefined;
  const o = objectAt(v, place);
  let fixed: number | undefined;
  if (isRecord(o.strategy) && typeof o.strategy.Fixed === "number") fixed = o.strategy.Fixed;
  else if (o.strategy !== "BatchLongest")
    place.in("strategy").fail(`is ${JSON.stringify(o.strategy)}, expected "BatchLongest" or {"Fixed": n}`);
  const direction = o.direction ?? "Right";
  if (direction !== "Right" && direction !== "Left")
    place.in("direction").fail(`is ${JSON.stringify(direction)}, expected "Right" or "Left"`);
  return {
    fixed,
    multipleOf: typeof o.pad_to_multiple_of === "number" ? o.pad_to_multiple_of : undefined,
    direction: direction as "Right" | "Left",
    padId: intField(o, "pad_id", place, 0),
    padTypeId: intField(o, "pad_type_id", place, 0),
    padToken: typeof o.pad_token === "string" ? o.pad_token : "[PAD]",
  };
}

function parseAddedTokens(v: unknown, place: JsonPlace, hasNormalizer: boolean): AddedToken[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) return place.fail(`is ${JSON.stringify(v)?.slice(0, 80)}, expected an array`);
  return v.map((t, i) => {
    const o = objectAt(t, place.in(i));
    if (typeof o.content !== "string" || o.content === "" || typeof o.id !== "number")
      place.in(i).fail(`needs an integer "id" and a non-empty "content"`);
    // Kiln finds added tokens in the raw text only, and as whole strings anywhere.
    if (o.single_word === true) place.in(i).fail(`(${JSON.stringify(o.content)}) has single_word true, which Kiln does not run`);
    if (o.normalized === true && hasNormalizer)
      place
        .in(i)
        .fail(`(${JSON.stringify(o.content)}) has normalized true; Kiln matches added tokens on the raw text, before the normalizer`);
    return {
      id: o.id as number,
      content: o.content as string,
      lstrip: o.lstrip === true,
      rstrip: o.rstrip === true,
      special: o.special === true,
    };
  });
}

/**
 * Any Hugging Face tokenizer.json (WordPiece, BPE, Unigram, WordLevel) run as `tokenizers` runs it: ids,
 * type ids, offsets, pairs, truncation.
 */
export class HfTokenizer {
  readonly model: WordModel;
  readonly addedTokens: readonly AddedToken[];
  private readonly normalizer: Normalizer;
  private readonly preTokenizer: PreTokenizer;
  private readonly postProcessor: PostProcessor | undefined;
  private readonly decoder: Decoder | undefined;
  private readonly truncation: Truncation | undefined;
  private readonly padding: Padding | undefined;
  private readonly splitter: AddedTokenSplitter;
  private readonly addedById: Map<number, AddedToken>;
  private readonly addedByContent: Map<string, AddedToken>;

  /** Builds the tokenizer a parsed tokenizer.json describes; `source` (its path) starts every error. */
  constructor(doc: JsonObject, source: string) {
    const at = (field: string): JsonPlace => new JsonPlace(source, field);
    this.model = buildModel(doc.model, at("model"));
    this.addedTokens = parseAddedTokens(doc.added_tokens, at("added_tokens"), doc.normalizer !== null && doc.normalizer !== undefined);
    this.normalizer = buildNormalizer(doc.normalizer, at("normalizer"));
    this.preTokenizer = buildPreTokenizer(doc.pre_tokenizer, at("pre_tokenizer"));
    this.postProcessor = buildPostProcessor(doc.post_processor, at("post_processor"));
    this.decoder = buildDecoder(doc.decoder, at("decoder"));
    this.truncation = parseTruncation(doc.truncation, at("truncation"));
    this.padding = parsePadding(doc.padding, at("padding"));
    this.splitter = new AddedTokenSplitter(this.addedTokens);
    this.addedById = new Map(this.addedTokens.map((t) => [t.id, t]));
    this.addedByContent = new Map(this.addedTokens.map((t) => [t.content, t]));
  }

  /** Parses tokenizer.json text. */
  static fromJson(text: string, source: string): HfTokenizer {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new TokenizerFileError(`${source}: not valid JSON (${(e as Error).message})`);
    }
    return new HfTokenizer(objectAt(doc, new JsonPlace(source, "(top level)")), source);
  }

  /** Number of ids, added tokens included. */
  get vocabSize(): number {
    let n = this.model.size;
    for (const t of this.addedTokens) n = Math.max(n, t.id + 1);
    return n;
  }

  idToToken(id: number): string | undefined {
    return this.addedById.get(id)?.content ?? this.model.idToToken(id);
  }

  tokenToId(token: string): number | undefined {
    return this.addedByContent.get(token)?.id ?? this.model.tokenToId(token);
  }

  /** The ids of `text` (and `pair`), special tokens included unless asked otherwise. */
  encodeIds(text: string, pair?: string, opts: HfEncodeOptions = {}): number[] {
    return this.encode(text, pair, opts).ids;
  }

  encode(text: string, pair?: string, opts: HfEncodeOptions = {}): Encoding {
    const addSpecialTokens = opts.addSpecialTokens ?? true;
    let a = this.encodeSequence(text, 0);
    let b = pair === undefined ? undefined : this.encodeSequence(pair, 1);
    const maxLength = opts.maxLength ?? this.truncation?.maxLength;
    if (maxLength !== undefined) {
      const added = addSpecialTokens ? (this.postProcessor?.added(b !== undefined) ?? 0) : 0;
      [a, b] = truncatePair(a, b, Math.max(0, maxLength - added), this.truncation ?? DEFAULT_TRUNCATION);
    }
    const joined = this.postProcessor ? this.postProcessor.process(a, b, addSpecialTokens) : b ? concatEncodings([a, b]) : a;
    return this.padding ? this.pad(joined, this.padding) : joined;
  }

  encodeBatch(texts: readonly string[], opts: HfEncodeOptions = {}): Encoding[] {
    const out = texts.map((t) => this.encode(t, undefined, { ...opts }));
    if (this.padding && this.padding.fixed === undefined) {
      const longest = Math.max(0, ...out.map((e) => e.ids.length));
      return out.map((e) => this.pad(e, { ...this.padding!, fixed: longest }));
    }
    return out;
  }

  decode(ids: readonly number[], opts: HfDecodeOptions = {}): string {
    const skip = opts.skipSpecialTokens ?? false;
    const tokens: string[] = [];
    for (const id of ids) {
      const added = this.addedById.get(id);
      if (added && skip && added.special) continue;
      const token = added?.content ?? this.model.idToToken(id);
      if (token !== undefined) tokens.push(token);
    }
    return this.decoder ? this.decoder(tokens).join("") : tokens.join(" ");
  }

  /** One text's tokens; `typeId` (0, or 1 for a pair's second text) is also its sequence id. */
  private encodeSequence(text: string, typeId: number): Encoding {
    const parts: Encoding[] = [];
    this.splitter.split(
      text,
      (plain, start) => parts.push(this.encodePlain(plain, start, typeId)),
      (id, start, end) => {
        const e = emptyEncoding();
        e.ids.push(id);
        // The token as `tokenizers` spells it: its span of the text, stripped whitespace included.
        e.tokens.push(text.slice(start, end));
        e.typeIds.push(typeId);
        e.offsets.push([start, end]);
        e.specialTokensMask.push(0);
        e.attentionMask.push(1);
        e.sequenceIds.push(typeId);
        parts.push(e);
      },
    );
    return parts.length === 1 ? parts[0]! : concatEncodings(parts);
  }

  private encodePlain(plain: string, base: number, typeId: number): Encoding {
    const e = emptyEncoding();
    const pieces = this.preTokenizer([this.normalizer(AlignedText.from(plain, base))]);
    const ids: number[] = [],
      starts: number[] = [],
      ends: number[] = [];
    for (const piece of pieces) {
      if (piece.length === 0) continue;
      const from = ids.length;
      this.model.tokenize(piece.text, ids, starts, ends);
      for (let i = from; i < ids.length; i++) {
        e.offsets.push(piece.original(starts[i]!, ends[i]!));
        e.tokens.push(this.model.idToToken(ids[i]!) ?? "");
      }
    }
    e.ids = ids;
    e.typeIds = ids.map(() => typeId);
    e.specialTokensMask = ids.map(() => 0);
    e.attentionMask = ids.map(() => 1);
    e.sequenceIds = ids.map(() => typeId);
    return e;
  }

  private pad(e: Encoding, p: Padding): Encoding {
    let target = p.fixed ?? e.ids.length;
    if (p.multipleOf && target % p.multipleOf !== 0) target += p.multipleOf - (target % p.multipleOf);
    const n = target - e.ids.length;
    if (n <= 0) return e;
    const fill = <T>(v: T): T[] => new Array<T>(n).fill(v);
    const join = <T>(xs: T[], pad: T[]): T[] => (p.direction === "Right" ? xs.concat(pad) : pad.concat(xs));
    return {
      ids: join(e.ids, fill(p.padId)),
      tokens: join(e.tokens, fill(p.padToken)),
      typeIds: join(e.typeIds, fill(p.padTypeId)),
      offsets: join(
        e.offsets,
        Array.from({ length: n }, (): [number, number] => [0, 0]),
      ),
      specialTokensMask: join(e.specialTokensMask, fill(1)),
      attentionMask: join(e.attentionMask, fill(0)),
      sequenceIds: join(e.sequenceIds, fill(-1)),
    };
  }
}
