// What every model step of a tokenizer.json is: one pre-tokenized word in, its tokens out (ids and
// where each starts and ends in the word), and the {token: id} vocabulary the models that read one share.
import { objectAt, type JsonPlace } from "./component-json.js";

export interface WordModel {
  /** Appends the ids of `word`'s tokens to `ids` and each token's [start, end) in `word`'s units to `starts`/`ends`. */
  tokenize(word: string, ids: number[], starts: number[], ends: number[]): void;
  idToToken(id: number): string | undefined;
  tokenToId(token: string): number | undefined;
  /** Ids 0..size-1 (the added tokens may extend it). */
  readonly size: number;
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

/** A model over a {token: id} vocabulary (BPE, WordPiece, WordLevel): the lookups every one of them answers alike. */
export abstract class VocabWordModel implements WordModel {
  protected readonly byToken: Map<string, number>;
  protected readonly byId: string[];

  constructor(vocab: unknown, place: JsonPlace) {
    ({ byToken: this.byToken, byId: this.byId } = vocabMap(vocab, place));
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

  abstract tokenize(word: string, ids: number[], starts: number[], ends: number[]): void;
}
