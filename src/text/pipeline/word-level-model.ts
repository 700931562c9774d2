// WordLevel: each pre-tokenized word is one vocabulary entry, or the unknown token.
import { stringField, type JsonObject, type JsonPlace } from "./component-json.js";
import { vocabMap, type WordModel } from "./word-model.js";

export class WordLevelModel implements WordModel {
  private readonly byToken: Map<string, number>;
  private readonly byId: string[];
  private readonly unkId: number | undefined;
  private readonly unk: string;

  constructor(o: JsonObject, place: JsonPlace) {
    ({ byToken: this.byToken, byId: this.byId } = vocabMap(o.vocab, place.in("vocab")));
    this.unk = stringField(o, "unk_token", place, "<unk>");
    this.unkId = this.byToken.get(this.unk);
  }

  get size(): number {
    return this.byId.length;
  }

  idToToken(id: number): string | undefined {
    return this.byId[id];
  }

  tokenToId(token: string): number | undefined {
    return this.byToken.get(token);
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
