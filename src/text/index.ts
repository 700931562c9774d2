// Kiln's text layer: train Unigram tokenizers, read and write them in Hugging Face's tokenizer.json
// format, and encode exactly as Hugging Face `tokenizers` does.
export type {
  Tokenizer,
  EncodeOptions,
  DecodeOptions,
  SpecialTokenRoles,
  SpecialTokenTemplate,
  UnigramTokenizerSpec,
} from "./tokenizer.js";
export { UnigramTokenizer } from "./tokenizer.js";
export type { AddedToken } from "./added-tokens.js";
export { loadTokenizer, saveTokenizer, useCausalTemplate, type SaveTokenizerOptions, type TextFileReader } from "./tokenizer-files.js";
export {
  trainUnigram,
  DEFAULT_SPECIAL_TOKENS,
  DEFAULT_ROLES,
  type UnigramTrainOptions,
  type TrainProgress,
} from "./train/unigram-trainer.js";
export { readTextLines, type ReadTextOptions } from "./text-lines.js";
export { vocabularyDifference, type VocabularyDifference } from "./vocabulary-difference.js";
