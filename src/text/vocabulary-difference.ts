// Whether two tokenizers share one vocabulary, id for id: a model trained with one can be fed by the other.
import type { Tokenizer } from "./tokenizer.js";

/** An id where two vocabularies have different tokens. */
export interface VocabularyDifference {
  id: number;
  /** The token each side has at `id` (undefined: past the end of its vocabulary). */
  a: string | undefined;
  b: string | undefined;
}

/** The first id whose token differs between `a` and `b`, or undefined when the vocabularies agree. */
export function vocabularyDifference(a: Tokenizer, b: Tokenizer): VocabularyDifference | undefined {
  for (let id = 0; id < Math.max(a.vocabSize, b.vocabSize); id++) {
    const ta = a.idToToken(id),
      tb = b.idToToken(id);
    if (ta !== tb) return { id, a: ta, b: tb };
  }
  return undefined;
}
