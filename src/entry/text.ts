// The package's "@kiln-ml/kiln/text" entry: src/text's public API, named one by one (the layer's
// internals stay out). It needs no executor.

export {
  trainUnigram,
  trainMergeModel,
  loadTokenizer,
  loadHfTokenizer,
  saveTokenizer,
  UnigramTokenizer,
  HfTokenizer,
  PipelineTokenizer,
  readTextLines,
  vocabularyDifference,
  type Tokenizer,
  type UnigramTrainOptions,
  type EncodeOptions,
  type EncodePairOptions,
  type PairEncoding,
  type DecodeOptions,
  type SaveTokenizerOptions,
} from "../text/index.js";
