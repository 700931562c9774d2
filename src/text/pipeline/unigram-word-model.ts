// Unigram as a tokenizer.json model of any pipeline: Kiln's Viterbi segmentation (unigram-model.ts,
// `tokenizers`' own tie-breaking) with token ends for offsets, and byte fallback for unknown pieces
// when the file asks for it.
import { UnigramModel } from "../unigram-model.js";
import { arrayField, boolField, intField, type JsonObject, type JsonPlace } from "./component-json.js";
import type { WordModel } from "./word-model.js";

const encoder = new TextEncoder();

export class UnigramWordModel implements WordModel {
  private readonly model: UnigramModel;
  private readonly byteFallback: boolean;
  private readonly scratchIds: number[] = [];
  private readonly scratchEnds: number[] = [];

  constructor(o: JsonObject, place: JsonPlace) {
    const vocab = arrayField(o, "vocab", place).map((entry, i) => {
      if (!Array.isArray(entry) || typeof entry[0] !== "string" || typeof entry[1] !== "number")
        place
          .in("vocab")
          .in(i)
          .fail(`is ${JSON.stringify(entry)}, expected [piece, score]`);
      const [piece, score] = entry as [string, number];
      return [piece, score] as const;
    });
    const unkId = intField(o, "unk_id", place, 0);
    if (unkId >= vocab.length) place.in("unk_id").fail(`is ${unkId}, past the end of "vocab" (${vocab.length} entries)`);
    this.model = new UnigramModel(vocab, unkId);
    this.byteFallback = boolField(o, "byte_fallback", place, false);
  }

  get size(): number {
    return this.model.size;
  }

  idToToken(id: number): string | undefined {
    return this.model.pieces[id];
  }

  tokenToId(token: string): number | undefined {
    return this.model.idOfPiece(token);
  }

  tokenize(word: string, ids: number[], starts: number[], ends: number[]): void {
    const tIds = this.scratchIds,
      tEnds = this.scratchEnds;
    tIds.length = tEnds.length = 0;
    this.model.encodeWord(word, tIds, tEnds);
    let start = 0;
    for (let i = 0; i < tIds.length; i++) {
      const id = tIds[i]!,
        end = tEnds[i]!;
      if (this.byteFallback && id === this.model.unkId && this.pushBytes(word.slice(start, end), start, end, ids, starts, ends)) {
        start = end;
        continue;
      }
      ids.push(id);
      starts.push(start);
      ends.push(end);
      start = end;
    }
  }

  /** The <0xXX> tokens of `text`'s bytes, when the vocabulary has them all. */
  private pushBytes(text: string, start: number, end: number, ids: number[], starts: number[], ends: number[]): boolean {
    const byteIds: number[] = [];
    for (const b of encoder.encode(text)) {
      const id = this.model.idOfPiece(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
      if (id === undefined) return false;
      byteIds.push(id);
    }
    for (const id of byteIds) {
      ids.push(id);
      starts.push(start);
      ends.push(end);
    }
    return true;
  }
}
