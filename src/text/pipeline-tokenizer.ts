// A Kiln Tokenizer over any tokenizer.json pipeline (HfTokenizer): the BPE and WordPiece tokenizers
// `kiln tokenizer train --model bpe|wordpiece` writes, and pretrained models' files (all-MiniLM-L6-v2),
// used for data preparation, training, classification and generation as the Unigram one is. The roles
// come from the file: cls and sep are the special tokens its template puts around a text (a causal
// template names only cls; tokenizer_config.json names sep), unk the model's unknown token, pad and mask
// from tokenizer_config.json. The file's own truncation and padding are left out, as transformers'
// tokenizers leave them out unless a call asks for them: Kiln packs and pads rows itself, and a caller
// that wants a limit passes encodePair's maxLength.
import type { AddedToken } from "./added-tokens.js";
import { isRecord } from "./pipeline/component-json.js";
import { HfTokenizer } from "./pipeline/hf-tokenizer.js";
import {
  checkPairOptions,
  TokenizerBase,
  type DecodeOptions,
  type EncodeOptions,
  type EncodePairOptions,
  type PairEncoding,
  type SpecialTokenRoles,
} from "./tokenizer.js";
import type { RoleHints } from "./tokenizer-json.js";

/** A non-Unigram tokenizer.json behind Kiln's Tokenizer interface, for data prepare, training and generation. */
export class PipelineTokenizer extends TokenizerBase {
  readonly hf: HfTokenizer;
  readonly vocabSize: number;

  /** `json` is the tokenizer.json text (saved as it is); `roles` name added tokens. */
  constructor(
    readonly json: string,
    readonly roles: SpecialTokenRoles,
    source: string,
    hf?: HfTokenizer,
  ) {
    const pipeline = hf ?? withoutTruncationAndPadding(json, source);
    super(pipeline.addedTokens, (role) => {
      const t = pipeline.addedTokens.find((a) => a.content === roles[role]);
      if (!t) throw new Error(`${source}: the ${role} token ${JSON.stringify(roles[role])} is not among "added_tokens"`);
      return t.id;
    });
    this.hf = pipeline;
    this.vocabSize = pipeline.vocabSize;
  }

  /** Reads the roles from the file (template, model) and `hints` (tokenizer_config.json). */
  static fromJson(json: string, source: string, hints: RoleHints): PipelineTokenizer {
    // The pipeline first: its errors name the field at fault.
    const hf = withoutTruncationAndPadding(json, source);
    const doc = JSON.parse(json) as Record<string, unknown>;
    const specials = templateSpecials(doc.post_processor);
    const model = doc.model;
    // Byte-level BPE models (RoBERTa's) name no unknown token; tokenizer_config.json's unk_token stands in.
    const unk = isRecord(model) && typeof model.unk_token === "string" ? model.unk_token : hints.unk;
    if (specials.length === 0 || unk === undefined)
      throw new Error(
        `${source}: Kiln trains with a tokenizer whose post-processor puts special tokens around the text ` +
          `(TemplateProcessing [CLS] $A [SEP], BertProcessing or RobertaProcessing) and that names an unk_token ` +
          `(its model, or tokenizer_config.json); read this file with HfTokenizer (loadHfTokenizer) instead`,
      );
    const roles: SpecialTokenRoles = {
      cls: specials[0]!,
      sep: specials.length > 1 ? specials[specials.length - 1]! : hints.sep,
      unk,
      pad: hints.pad,
      mask: hints.mask,
    };
    return new PipelineTokenizer(json, roles, source, hf);
  }

  get addedTokens(): readonly AddedToken[] {
    return this.hf.addedTokens;
  }

  encode(text: string, opts: EncodeOptions = {}): number[] {
    return this.hf.encode(text, undefined, { addSpecialTokens: opts.addSpecialTokens ?? true }).ids;
  }

  encodePair(text: string, pair: string | undefined, opts: EncodePairOptions = {}): PairEncoding {
    checkPairOptions(opts);
    const addSpecialTokens = opts.addSpecialTokens ?? true;
    const whole = this.hf.encode(text, pair, { addSpecialTokens });
    if (opts.maxLength === undefined || whole.ids.length <= opts.maxLength)
      return { ids: whole.ids, typeIds: whole.typeIds, truncated: false };
    const cut = this.hf.encode(text, pair, { addSpecialTokens, maxLength: opts.maxLength });
    return { ids: cut.ids, typeIds: cut.typeIds, truncated: true };
  }

  decode(ids: readonly number[], opts: DecodeOptions = {}): string {
    return this.hf.decode(ids, { skipSpecialTokens: opts.skipSpecialTokens ?? false });
  }

  idToToken(id: number): string | undefined {
    return this.hf.idToToken(id);
  }

  tokenToId(token: string): number | undefined {
    return this.hf.tokenToId(token);
  }
}

/** The file's pipeline with its "truncation" and "padding" left out (Kiln's encode adds neither). */
function withoutTruncationAndPadding(json: string, source: string): HfTokenizer {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    return HfTokenizer.fromJson(json, source); // throws, naming the file and the parse error
  }
  if (!isRecord(doc)) return HfTokenizer.fromJson(json, source);
  return new HfTokenizer({ ...doc, truncation: null, padding: null }, source);
}

/** The special tokens the file's post-processor puts around a single text, in order (nested in a Sequence too). */
function templateSpecials(post: unknown): string[] {
  if (!isRecord(post)) return [];
  if (post.type === "Sequence" && Array.isArray(post.processors))
    return post.processors.map(templateSpecials).find((s) => s.length > 0) ?? [];
  // BertProcessing and RobertaProcessing name theirs as [token, id].
  if ((post.type === "BertProcessing" || post.type === "RobertaProcessing") && Array.isArray(post.cls) && Array.isArray(post.sep))
    return [String(post.cls[0]), String(post.sep[0])];
  const single = Array.isArray(post.single) ? (post.single as unknown[]) : [];
  return single.flatMap((p) => (isRecord(p) && isRecord(p.SpecialToken) ? [String(p.SpecialToken.id)] : []));
}
