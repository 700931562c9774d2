// A Kiln Tokenizer over any tokenizer.json pipeline (HfTokenizer): the BPE and WordPiece tokenizers
// `kiln tokenizer train --model bpe|wordpiece` writes, used for data preparation, training and
// generation as the Unigram one is. The roles come from the file: cls and sep are the special tokens
// its template puts around a text (a causal template names only cls; tokenizer_config.json names sep),
// unk the model's unknown token, pad and mask from tokenizer_config.json.
import type { AddedToken } from "./added-tokens.js";
import { isRecord } from "./pipeline/component-json.js";
import { HfTokenizer } from "./pipeline/hf-tokenizer.js";
import { TokenizerBase, type DecodeOptions, type EncodeOptions, type SpecialTokenRoles } from "./tokenizer.js";
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
    const pipeline = hf ?? HfTokenizer.fromJson(json, source);
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
    const hf = HfTokenizer.fromJson(json, source);
    const doc = JSON.parse(json) as Record<string, unknown>;
    // Kiln's data preparation packs whole texts into rows itself: padding or truncation would put pads
    // and cut texts into the training data.
    for (const field of ["truncation", "padding"])
      if (doc[field] !== null && doc[field] !== undefined)
        throw new Error(
          `${source}: "${field}" is set; Kiln encodes training data without truncation or padding, so it must be null ` +
            `(or read the file with HfTokenizer, loadHfTokenizer, which applies it)`,
        );
    const post = doc.post_processor;
    const single = isRecord(post) && Array.isArray(post.single) ? (post.single as unknown[]) : [];
    const specials = single.flatMap((p) => (isRecord(p) && isRecord(p.SpecialToken) ? [String(p.SpecialToken.id)] : []));
    const model = doc.model;
    const unk = isRecord(model) && typeof model.unk_token === "string" ? model.unk_token : undefined;
    if (specials.length === 0 || unk === undefined)
      throw new Error(
        `${source}: Kiln trains with a tokenizer whose post-processor is a TemplateProcessing around the text ` +
          `([CLS] $A [SEP]) and whose model names an unk_token; read this file with HfTokenizer (loadHfTokenizer) instead`,
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
