// The check every pipeline makes before it runs a model with a tokenizer handed to it separately: a
// tokenizer that is not the model's own gives confident nonsense, or reads past the embedding table,
// instead of an error.
import { OptionError } from "../core/option-error.js";

/** Where the model and the tokenizer came from, for messages (e.g. their config.json and tokenizer.json). */
export interface ModelTokenizerSources {
  model?: string;
  tokenizer?: string;
}

export interface ModelTokenizerFit {
  /** The pipeline that checks, named in the error. */
  pipeline: string;
  sources: ModelTokenizerSources;
  /** The model's vocab_size (its embedding table's rows) and the tokenizer's. */
  vocabSize: number;
  tokenizerVocabSize: number;
  /** The tokenizer's special-token ids the pipeline feeds the model, by role. */
  ids: ReadonlyArray<readonly [role: string, id: number]>;
  /** Where the model counts from its pad id (RoBERTa's positions): the tokenizer's pad id must be the model's. */
  pad?: { id: number; modelId: number | undefined };
}

/** Refuses a tokenizer with another vocabulary size, a special-token id outside the table, or another pad id. */
export function checkModelTokenizer(f: ModelTokenizerFit): void {
  const model = `the model (${f.sources.model ?? "its config"})`;
  const refuse = (why: string) =>
    new OptionError({
      option: "tokenizer",
      value: f.sources.tokenizer ?? "the tokenizer given",
      why,
      fix: "Use the tokenizer saved with the model",
      where: f.pipeline,
    });
  const table = f.vocabSize;
  if (f.tokenizerVocabSize !== table) throw refuse(`has ${f.tokenizerVocabSize} tokens but ${model} has vocab_size ${table}`);
  for (const [role, id] of f.ids)
    if (!(Number.isInteger(id) && id >= 0 && id < table))
      throw refuse(`has ${role} id ${id}, outside the embedding table of ${model}, which has vocab_size ${table}`);
  if (f.pad !== undefined && f.pad.id !== f.pad.modelId)
    throw refuse(`has pad id ${f.pad.id} but ${model} has pad_token_id ${String(f.pad.modelId)}`);
}
