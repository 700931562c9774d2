// WordPiece (BERT): the longest vocabulary entry at the start of the word, then the longest entry
// spelled with the continuation prefix ("##") at each next position; a word with a part no entry
// covers, or longer than max_input_chars_per_word characters, is one unknown token.
import { intField, stringField, type JsonObject, type JsonPlace } from "./component-json.js";
import { VocabWordModel } from "./word-model.js";

const CACHE_ENTRIES = 100_000;
const CACHE_MAX_LENGTH = 64;

export class WordPieceModel extends VocabWordModel {
  private readonly unkId: number;
  private readonly prefix: string;
  private readonly maxChars: number;
  /** Word → its tokens as (id, start, end) triples. */
  private readonly cache = new Map<string, number[]>();

  constructor(o: JsonObject, place: JsonPlace) {
    super(o.vocab, place.in("vocab"));
    const unk = stringField(o, "unk_token", place, "[UNK]");
    const unkId = this.byToken.get(unk);
    if (unkId === undefined) place.in("unk_token").fail(`is ${JSON.stringify(unk)}, which is not in "vocab"`);
    this.unkId = unkId!;
    this.prefix = stringField(o, "continuing_subword_prefix", place, "##");
    this.maxChars = intField(o, "max_input_chars_per_word", place, 100);
  }

  tokenize(word: string, ids: number[], starts: number[], ends: number[]): void {
    const cached = this.cache.get(word);
    if (cached !== undefined) {
      for (let i = 0; i < cached.length; i += 3) {
        ids.push(cached[i]!);
        starts.push(cached[i + 1]!);
        ends.push(cached[i + 2]!);
      }
      return;
    }
    const first = ids.length;
    this.split(word, ids, starts, ends);
    if (word.length <= CACHE_MAX_LENGTH && this.cache.size < CACHE_ENTRIES) {
      const entry: number[] = [];
      for (let i = first; i < ids.length; i++) entry.push(ids[i]!, starts[i]!, ends[i]!);
      this.cache.set((word + " ").slice(0, -1), entry);
    }
  }

  private split(word: string, ids: number[], starts: number[], ends: number[]): void {
    const n = word.length;
    if (n === 0) return;
    let chars = 0;
    for (let i = 0; i < n; i++) if (!isLow(word.charCodeAt(i))) chars++;
    const first = ids.length;
    if (chars <= this.maxChars) {
      let start = 0;
      while (start < n) {
        let end = n;
        let found = -1;
        while (end > start) {
          const piece = start > 0 ? this.prefix + word.slice(start, end) : word.slice(start, end);
          const id = this.byToken.get(piece);
          if (id !== undefined) {
            found = id;
            break;
          }
          end--;
          // Shorter candidates end on character boundaries.
          if (end > start && isLow(word.charCodeAt(end))) end--;
        }
        if (found < 0) break;
        ids.push(found);
        starts.push(start);
        ends.push(end);
        start = end;
      }
      if (start === n) return;
    }
    ids.length = starts.length = ends.length = first;
    ids.push(this.unkId);
    starts.push(0);
    ends.push(n);
  }
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
