// The model step of a tokenizer.json: "type" picks WordPiece, BPE, WordLevel or Unigram (each in its own
// file, each a WordModel).
import { BpeModel } from "./bpe-model.js";
import { objectAt, type JsonPlace } from "./component-json.js";
import type { WordModel } from "./word-model.js";
import { UnigramWordModel } from "./unigram-word-model.js";
import { WordLevelModel } from "./word-level-model.js";
import { WordPieceModel } from "./word-piece-model.js";

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
