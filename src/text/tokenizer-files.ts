// A tokenizer directory as Python `transformers` expects it beside a model: tokenizer.json (Hugging
// Face's format, the whole pipeline), tokenizer_config.json (the class to instantiate, the special tokens
// by role, the maximum length) and special_tokens_map.json. `AutoTokenizer.from_pretrained(dir)` then
// builds a PreTrainedTokenizerFast that encodes exactly as Kiln does.
import { fileInside } from "../io/contained-path.js";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AddedToken } from "./added-tokens.js";
import { writeFileAtomic } from "../io/atomic-file.js";
import { HfTokenizer } from "./pipeline/hf-tokenizer.js";
import { PipelineTokenizer } from "./pipeline-tokenizer.js";
import { UnigramTokenizer, type SpecialTokenRoles, type Tokenizer } from "./tokenizer.js";
import { parseTokenizerJson, tokenizerJson, type RoleHints } from "./tokenizer-json.js";

/** Options of saveTokenizer: the model's longest input. */
export interface SaveTokenizerOptions {
  /** The longest input the model takes, recorded for `transformers` (RoBERTa: 512). */
  modelMaxLength?: number;
}

const DEFAULT_ROLE_HINTS: RoleHints = { pad: "<pad>", mask: "[MASK]", sep: "[SEP]" };

function addedTokenEntry(t: AddedToken): Record<string, unknown> {
  return { content: t.content, lstrip: t.lstrip, normalized: false, rstrip: t.rstrip, single_word: false, special: t.special };
}

/** A special token as `transformers` writes one: the bare string, or an object when it strips spaces. */
function roleEntry(t: AddedToken): unknown {
  if (!t.lstrip && !t.rstrip) return t.content;
  const { special: _special, ...rest } = addedTokenEntry(t);
  return rest;
}

interface SavedParts {
  roles: SpecialTokenRoles;
  addedTokens: readonly AddedToken[];
}

function tokenizerConfig({ roles, addedTokens }: SavedParts, modelMaxLength: number): Record<string, unknown> {
  return {
    added_tokens_decoder: Object.fromEntries(addedTokens.map((t) => [String(t.id), addedTokenEntry(t)])),
    clean_up_tokenization_spaces: false,
    cls_token: roles.cls,
    mask_token: roles.mask,
    // RoBERTa has one token type: without this, a pair would come back with token_type_ids of 1.
    model_input_names: ["input_ids", "attention_mask"],
    model_max_length: modelMaxLength,
    pad_token: roles.pad,
    sep_token: roles.sep,
    tokenizer_class: "PreTrainedTokenizerFast",
    unk_token: roles.unk,
  };
}

function specialTokensMap({ roles, addedTokens }: SavedParts): Record<string, unknown> {
  const byContent = new Map(addedTokens.map((t) => [t.content, t]));
  return Object.fromEntries(
    (["cls", "mask", "pad", "sep", "unk"] as const).map((role) => [`${role}_token`, roleEntry(byContent.get(roles[role])!)]),
  );
}

/** Writes DIR/tokenizer.json, tokenizer_config.json and special_tokens_map.json, each atomically. */
export async function saveTokenizer(tok: Tokenizer, dir: string, opts: SaveTokenizerOptions = {}): Promise<void> {
  if (!(tok instanceof UnigramTokenizer) && !(tok instanceof PipelineTokenizer))
    throw new Error("saveTokenizer: only tokenizers from trainUnigram, trainBpe, trainWordPiece or loadTokenizer can be saved");
  const modelMaxLength = opts.modelMaxLength ?? 512;
  if (!Number.isInteger(modelMaxLength) || modelMaxLength < 1)
    throw new Error(`modelMaxLength must be a positive integer, got ${modelMaxLength}`);
  const parts: SavedParts = tok instanceof UnigramTokenizer ? tok.spec : { roles: tok.roles, addedTokens: tok.addedTokens };
  await writeFileAtomic(join(dir, "tokenizer.json"), tok instanceof UnigramTokenizer ? tokenizerJson(tok.spec) : tok.json);
  await writeFileAtomic(join(dir, "tokenizer_config.json"), JSON.stringify(tokenizerConfig(parts, modelMaxLength), null, 2) + "\n");
  await writeFileAtomic(join(dir, "special_tokens_map.json"), JSON.stringify(specialTokensMap(parts), null, 2) + "\n");
}

/** The "model"."type" of tokenizer.json text (undefined when it cannot tell; the parser then says why). */
function modelType(text: string): unknown {
  try {
    const doc = JSON.parse(text) as { model?: { type?: unknown } };
    return doc?.model?.type;
  } catch {
    return "Unigram";
  }
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

function tokenContent(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && typeof (value as { content?: unknown }).content === "string") {
    return (value as { content: string }).content;
  }
  return undefined;
}

/** Reads a text file, or gives undefined when it does not exist (local files by default). */
export type TextFileReader = (path: string) => Promise<string | undefined>;

/** dir + "/" + name, without collapsing a URL's "//" (gs://bucket/dir). */
function inDir(dir: string, name: string): string {
  return /^[a-z]+:\/\//.test(dir) ? `${dir.replace(/\/+$/, "")}/${name}` : join(dir, name);
}

/** The pad, mask and sep tokens named by tokenizer_config.json, when the directory has one. */
async function roleHints(dir: string, read: TextFileReader): Promise<RoleHints> {
  const path = inDir(dir, "tokenizer_config.json");
  const text = await read(path);
  if (text === undefined) return DEFAULT_ROLE_HINTS;
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${path}: not valid JSON (${(e as Error).message}); fix it or remove it to use the default pad and mask tokens`);
  }
  return {
    pad: tokenContent(config.pad_token) ?? DEFAULT_ROLE_HINTS.pad,
    mask: tokenContent(config.mask_token) ?? DEFAULT_ROLE_HINTS.mask,
    sep: tokenContent(config.sep_token) ?? tokenContent(config.eos_token) ?? DEFAULT_ROLE_HINTS.sep,
    unk: tokenContent(config.unk_token),
  };
}

/**
 * Any tokenizer.json (DIR/tokenizer.json, or the file itself) as an HfTokenizer: WordPiece, BPE,
 * WordLevel or Unigram with the pipeline the file describes.
 */
export async function loadHfTokenizer(path: string, read: TextFileReader = readIfPresent): Promise<HfTokenizer> {
  const file = path.endsWith(".json") ? path : inDir(path, "tokenizer.json");
  const text = await read(file);
  if (text === undefined) throw new Error(`${file} does not exist: pass a tokenizer.json file or the directory holding one`);
  return HfTokenizer.fromJson(text, file);
}

/**
 * Loads DIR/tokenizer.json (and the roles in DIR/tokenizer_config.json, if present). `read` lets other
 * storage (gs://) supply the files.
 */
export async function loadTokenizer(dir: string, read: TextFileReader = readIfPresent): Promise<UnigramTokenizer | PipelineTokenizer> {
  const path = inDir(dir, "tokenizer.json");
  // A local directory's files are its own: a symlink out of it (to /etc/…) is refused unopened.
  if (read === readIfPresent) for (const name of ["tokenizer.json", "tokenizer_config.json"]) await fileInside(dir, name, dir);
  const text = await read(path);
  if (text === undefined) {
    throw new Error(`${path} does not exist: pass the directory that \`kiln tokenizer train --out DIR\` wrote`);
  }
  const hints = await roleHints(dir, read);
  // Kiln's Unigram files run on the Unigram tokenizer's own fast path; BPE and WordPiece ones on the pipeline.
  if (modelType(text) !== "Unigram") return PipelineTokenizer.fromJson(text, path, hints);
  return new UnigramTokenizer(parseTokenizerJson(text, path, hints));
}

/**
 * Rewrites DIR/tokenizer.json (a Kiln tokenizer beside a causal LM) with the causal template, `[CLS] $A`:
 * transformers' `tok(prompt)` then gives the bos token and the prompt's ids, as its Llama and GPT-2
 * tokenizers do, instead of ending every prompt with the end-of-sequence token, after which
 * `model.generate(**tok(prompt))` would continue. Kiln itself trains on `[CLS] … [SEP]` and generates
 * from `bos + ids`, so nothing else changes.
 */
export async function useCausalTemplate(dir: string): Promise<void> {
  const tok = await loadTokenizer(dir);
  if (tok instanceof PipelineTokenizer) {
    const doc = JSON.parse(tok.json) as Record<string, unknown>;
    const cls = { id: tok.roles.cls, ids: [tok.clsId], tokens: [tok.roles.cls] };
    const special = (typeId: number) => ({ SpecialToken: { id: cls.id, type_id: typeId } });
    doc.post_processor = {
      type: "TemplateProcessing",
      single: [special(0), { Sequence: { id: "A", type_id: 0 } }],
      pair: [special(0), { Sequence: { id: "A", type_id: 0 } }, special(1), { Sequence: { id: "B", type_id: 1 } }],
      special_tokens: { [cls.id]: cls },
    };
    await writeFileAtomic(join(dir, "tokenizer.json"), JSON.stringify(doc));
    return;
  }
  if (tok.spec.template === "causal") return;
  await writeFileAtomic(join(dir, "tokenizer.json"), tokenizerJson({ ...tok.spec, template: "causal" }));
}
