// Kiln's text layer: train Unigram tokenizers, read and write them in Hugging Face's tokenizer.json
// format, and encode exactly as Hugging Face `tokenizers` does.
export type {
  Tokenizer,
  EncodeOptions,
  EncodePairOptions,
  PairEncoding,
  DecodeOptions,
  SpecialTokenRoles,
  SpecialTokenTemplate,
  UnigramTokenizerSpec,
} from "./tokenizer.js";
export { UnigramTokenizer } from "./tokenizer.js";
export type { AddedToken } from "./added-tokens.js";
export {
  loadTokenizer,
  loadHfTokenizer,
  saveTokenizer,
  useCausalTemplate,
  type SaveTokenizerOptions,
  type TextFileReader,
} from "./tokenizer-files.js";
export {
  trainUnigram,
  DEFAULT_SPECIAL_TOKENS,
  DEFAULT_ROLES,
  type UnigramTrainOptions,
  type TrainProgress,
} from "./train/unigram-trainer.js";
export { readTextLines, type ReadTextOptions } from "./text-lines.js";
export { vocabularyDifference, type VocabularyDifference } from "./vocabulary-difference.js";
export { HfTokenizer, type HfEncodeOptions, type HfDecodeOptions } from "./pipeline/hf-tokenizer.js";
export type { Encoding } from "./pipeline/encoding.js";
export { TokenizerFileError } from "./pipeline/component-json.js";
export { PipelineTokenizer } from "./pipeline-tokenizer.js";
export { trainMergeModel, type MergeModel, type MergeTrainOptions } from "./train/bpe-trainer.js";
