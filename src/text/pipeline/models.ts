// The model step of a tokenizer.json: one pre-tokenized word in, its tokens out (ids and where each
// ends in the word). "type" picks WordPiece, BPE, WordLevel or Unigram; each lives in its own file.
import { BpeModel } from "./bpe-model.js";
import { objectAt, type JsonPlace } from "./component-json.js";
import { UnigramWordModel } from "./unigram-word-model.js";
import { WordLevelModel } from "./word-level-model.js";
import { WordPieceModel } from "./word-piece-model.js";

export interface WordModel {
  /** Appends the ids of `word`'s tokens to `ids` and each token's [start, end) in `word`'s units to `starts`/`ends`. */
  tokenize(word: string, ids: number[], starts: number[], ends: number[]): void;
  idToToken(id: number): string | undefined;
  tokenToId(token: string): number | undefined;
  /** Ids 0..size-1 (the added tokens may extend it). */
  readonly size: number;
}

export function buildModel(json: unknown, place: JsonPlace): WordModel {
  const o = objectAt(json, place);
  switch (o.type) {
    case "WordPiece":
      return new WordPieceModel(o, place);
    case "BPE":
      return new BpeModel(o, place);
    case "WordLevel":
      return new WordLevelModel(o, place);
    case "Unigram":
      return new UnigramWordModel(o, place);
    default:
      // Old files leave "type" out of a BPE model.
      if (o.type === undefined && "merges" in o) return new BpeModel(o, place);
      return place.unsupported(o.type, ["WordPiece", "BPE", "WordLevel", "Unigram"]);
  }
}

/** A {token: id} vocabulary, checked; gives the id → token table too. */
export function vocabMap(v: unknown, place: JsonPlace): { byToken: Map<string, number>; byId: string[] } {
  const o = objectAt(v, place);
  const byToken = new Map<string, number>();
  const byId: string[] = [];
  for (const [token, id] of Object.entries(o)) {
    if (typeof id !== "number" || !Number.isInteger(id) || id < 0)
      place.fail(`gives ${JSON.stringify(token)} the id ${JSON.stringify(id)}, expected an integer ≥ 0`);
    byToken.set(token, id);
    byId[id] = token;
  }
  return { byToken, byId };
}
