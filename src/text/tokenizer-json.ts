// tokenizer.json in Hugging Face's format (what `tokenizers` `Tokenizer.save` writes and
// `Tokenizer.from_file` reads) for Kiln's fixed pipeline. Writing and checking share one description of
// each component, so Kiln reads back exactly what it writes and refuses, naming the field, a file whose
// pipeline it would encode differently.
import type { AddedToken } from "./added-tokens.js";
import { METASPACE } from "./metaspace.js";
import type { SpecialTokenRoles, SpecialTokenTemplate, UnigramTokenizerSpec } from "./tokenizer.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const NORMALIZER: Json = {
  type: "Sequence",
  normalizers: [
    { type: "NFKC" },
    { type: "Replace", pattern: { String: "``" }, content: '"' },
    { type: "Replace", pattern: { String: "''" }, content: '"' },
  ],
};

const METASPACE_STEP: Json = { type: "Metaspace", replacement: METASPACE, prepend_scheme: "always", split: true };

function specialPiece(content: string, typeId: number): Json {
  return { SpecialToken: { id: content, type_id: typeId } };
}

function sequencePiece(id: "A" | "B", typeId: number): Json {
  return { Sequence: { id, type_id: typeId } };
}

/**
 * "classify": `[CLS] $A [SEP]` for one sequence, `[CLS] $A [SEP] $B:1 [SEP]:1` for a pair. "causal":
 * `[CLS] $A` and `[CLS] $A [CLS]:1 $B:1`, the bos-only template of transformers' Llama tokenizer.
 */
export function postProcessorJson(cls: AddedToken, sep: AddedToken, template: SpecialTokenTemplate): Json {
  const special = (t: AddedToken): Json => ({ id: t.content, ids: [t.id], tokens: [t.content] });
  if (template === "causal") {
    return {
      type: "TemplateProcessing",
      single: [specialPiece(cls.content, 0), sequencePiece("A", 0)],
      pair: [specialPiece(cls.content, 0), sequencePiece("A", 0), specialPiece(cls.content, 1), sequencePiece("B", 1)],
      special_tokens: { [cls.content]: special(cls) },
    };
  }
  return {
    type: "TemplateProcessing",
    single: [specialPiece(cls.content, 0), sequencePiece("A", 0), specialPiece(sep.content, 0)],
    pair: [
      specialPiece(cls.content, 0),
      sequencePiece("A", 0),
      specialPiece(sep.content, 0),
      sequencePiece("B", 1),
      specialPiece(sep.content, 1),
    ],
    special_tokens: { [cls.content]: special(cls), [sep.content]: special(sep) },
  };
}

function addedTokenJson(t: AddedToken): Json {
  return { id: t.id, content: t.content, single_word: false, lstrip: t.lstrip, rstrip: t.rstrip, normalized: false, special: t.special };
}

function tokenByContent(spec: UnigramTokenizerSpec, content: string): AddedToken {
  const token = spec.addedTokens.find((t) => t.content === content);
  if (!token) throw new Error(`"${content}" is not one of the tokenizer's special tokens`);
  return token;
}

// Scores keep at most 15 significant digits: such a decimal converts to the same float64 under any
// correct-enough parser, including serde_json's default one, which can be one unit off at 17 digits —
// enough to flip a Viterbi tie between the two implementations.
export function portableScore(score: number): number {
  return Number(score.toPrecision(15));
}

/** The tokenizer.json text for a spec; the vocabulary is written one entry per line. */
export function tokenizerJson(spec: UnigramTokenizerSpec): string {
  const cls = tokenByContent(spec, spec.roles.cls);
  const sep = tokenByContent(spec, spec.roles.sep);
  const unk = tokenByContent(spec, spec.roles.unk);
  const placeholder = "\u0000vocab\u0000";
  const doc: Json = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: spec.addedTokens.map(addedTokenJson),
    normalizer: NORMALIZER,
    pre_tokenizer: METASPACE_STEP,
    post_processor: postProcessorJson(cls, sep, spec.template ?? "classify"),
    decoder: METASPACE_STEP,
    model: { type: "Unigram", unk_id: unk.id, vocab: placeholder, byte_fallback: false },
  };
  const vocabLines = spec.vocab.map(([piece, score]) => `      [${JSON.stringify(piece)}, ${JSON.stringify(score)}]`).join(",\n");
  return JSON.stringify(doc, null, 2).replace(JSON.stringify(placeholder), () => `[\n${vocabLines}\n    ]`) + "\n";
}

class TokenizerJsonError extends Error {
  constructor(source: string, what: string) {
    super(`${source}: ${what}`);
    this.name = "TokenizerJsonError";
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(b);
    return Object.keys(a).length === keys.length && keys.every((k) => k in a && sameJson(a[k], b[k]));
  }
  return a === b;
}

/** Roles that tokenizer.json does not record; tokenizer_config.json beside it names them. */
export interface RoleHints {
  pad: string;
  mask: string;
  /** The sep (eos) token, which a causal template does not name. */
  sep: string;
  /** The unk token, for a model that names none (byte-level BPE). */
  unk?: string;
}

/** Parses and checks tokenizer.json text; `source` (the file path) prefixes every error. */
export function parseTokenizerJson(text: string, source: string, hints: RoleHints): UnigramTokenizerSpec {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new TokenizerJsonError(source, `not valid JSON (${(e as Error).message})`);
  }
  const fail = (what: string): never => {
    throw new TokenizerJsonError(
      source,
      `${what}. Kiln trains and prepares data with the tokenizer.json files that \`kiln tokenizer train\` writes ` +
        `(HfTokenizer reads any other).`,
    );
  };
  if (!isRecord(doc)) return fail("the top level is not a JSON object");
  if (doc.version !== "1.0") fail(`"version" is ${JSON.stringify(doc.version)}, expected "1.0"`);
  if (doc.truncation !== null && doc.truncation !== undefined)
    fail(`"truncation" is set; Kiln encodes without truncation, so it must be null`);
  if (doc.padding !== null && doc.padding !== undefined) fail(`"padding" is set; Kiln encodes without padding, so it must be null`);

  const model = doc.model;
  if (!isRecord(model) || model.type !== "Unigram") return fail(`"model.type" must be "Unigram"`);
  if (model.byte_fallback === true) fail(`"model.byte_fallback" is true; Kiln's Unigram model has no byte fallback`);
  if (!Array.isArray(model.vocab) || model.vocab.length === 0) return fail(`"model.vocab" must be a non-empty array of [piece, score]`);
  const vocab: Array<readonly [string, number]> = model.vocab.map((entry: unknown, i: number) => {
    if (
      !Array.isArray(entry) ||
      entry.length !== 2 ||
      typeof entry[0] !== "string" ||
      typeof entry[1] !== "number" ||
      !Number.isFinite(entry[1])
    ) {
      return fail(`"model.vocab[${i}]" is ${JSON.stringify(entry)}, expected [piece, finite score]`);
    }
    return [entry[0], entry[1]] as const;
  });
  const unkId = model.unk_id;
  if (typeof unkId !== "number" || !Number.isInteger(unkId) || unkId < 0 || unkId >= vocab.length) {
    fail(`"model.unk_id" is ${JSON.stringify(unkId)}, expected an index into "model.vocab" (0..${vocab.length - 1})`);
  }

  if (!Array.isArray(doc.added_tokens)) return fail(`"added_tokens" must be an array`);
  const addedTokens: AddedToken[] = doc.added_tokens.map((t: unknown, i: number) => {
    const where = `"added_tokens[${i}]"`;
    if (!isRecord(t) || typeof t.content !== "string" || t.content === "" || typeof t.id !== "number")
      return fail(`${where} needs an "id" and a non-empty "content"`);
    if (t.single_word === true) fail(`${where} ("${t.content}") has single_word true, which Kiln does not support`);
    if (t.normalized === true) fail(`${where} ("${t.content}") has normalized true; Kiln matches added tokens on the raw text`);
    if (vocab[t.id]?.[0] !== t.content)
      fail(`${where}: "${t.content}" must be model.vocab[${t.id}], found ${JSON.stringify(vocab[t.id]?.[0])}`);
    return { id: t.id, content: t.content, lstrip: t.lstrip === true, rstrip: t.rstrip === true, special: t.special === true };
  });

  for (const [field, expected] of [
    ["normalizer", NORMALIZER],
    ["pre_tokenizer", METASPACE_STEP],
    ["decoder", METASPACE_STEP],
  ] as const) {
    if (!sameJson(doc[field], expected)) fail(`"${field}" is ${JSON.stringify(doc[field])}, expected ${JSON.stringify(expected)}`);
  }

  const single = isRecord(doc.post_processor) ? doc.post_processor.single : undefined;
  const specialIdOf = (piece: unknown): string | undefined =>
    isRecord(piece) && isRecord(piece.SpecialToken) && typeof piece.SpecialToken.id === "string" ? piece.SpecialToken.id : undefined;
  const template: SpecialTokenTemplate = Array.isArray(single) && single.length === 2 ? "causal" : "classify";
  const clsContent = Array.isArray(single) ? specialIdOf(single[0]) : undefined;
  const sepContent = template === "causal" ? hints.sep : Array.isArray(single) ? specialIdOf(single[2]) : undefined;
  const cls = addedTokens.find((t) => t.content === clsContent);
  const sep = addedTokens.find((t) => t.content === sepContent);
  if (!cls || !sep || !sameJson(doc.post_processor, postProcessorJson(cls, sep, template))) {
    fail(
      `"post_processor" must be TemplateProcessing "[CLS] $A [SEP]" (pair "[CLS] $A [SEP] $B:1 [SEP]:1") or, for a causal LM, ` +
        `"[CLS] $A" (pair "[CLS] $A [CLS]:1 $B:1") over the added tokens ` +
        `(the sep token "${hints.sep}" from tokenizer_config.json among them)`,
    );
  }

  const roles: SpecialTokenRoles = {
    cls: cls!.content,
    sep: sep!.content,
    unk: vocab[unkId as number][0],
    pad: hints.pad,
    mask: hints.mask,
  };
  for (const role of ["unk", "pad", "mask"] as const) {
    if (!addedTokens.some((t) => t.content === roles[role])) fail(`the ${role} token "${roles[role]}" is not among "added_tokens"`);
  }
  return { vocab, addedTokens, roles, ...(template === "causal" ? { template } : {}) };
}
