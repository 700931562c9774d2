// WordLevel: each pre-tokenized word is one vocabulary entry, or the unknown token.
import { stringField, type JsonObject, type JsonPlace } from "./component-json.js";
import { VocabWordModel } from "./word-model.js";

export class WordLevelModel extends VocabWordModel {
  private readonly unkId: number | undefined;
  private readonly unk: string;

  constructor(o: JsonObject, place: JsonPlace) {
    super(o.vocab, place.in("vocab"));
    this.unk = stringField(o, "unk_token", place, "<unk>");
    this.unkId = this.byToken.get(this.unk);
  }

  tokenize(word: string, ids: number[], starts: number[], ends: number[]): void {
    const id = this.byToken.get(word) ?? this.unkId;
    if (id === undefined)
      throw new Error(
        `WordLevel: ${JSON.stringify(word)} is not in the vocabulary, and its unk_token ${JSON.stringify(this.unk)} is not either`,
      );
    ids.push(id);
    starts.push(0);
    ends.push(word.length);
  }
}
