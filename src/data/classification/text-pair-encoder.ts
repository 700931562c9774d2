// Token ids of one record: a text, or a text and its pair, in the tokenizer's template, cut to
// `maxLength`. The Tokenizer interface encodes single texts only, so the template is read off it once:
// the special tokens it puts before and after a text (`[CLS]` and `[SEP]` for Kiln's Unigram
// tokenizers). A pair is laid out by the pair template of the tokenizer.json's post-processor where it
// has one (pair-template.ts), else as BERT's: prefix, text, suffix, pair, suffix, with token type 0 up to
// the first suffix and 1 after it. Too long a record is cut as `tokenizers`
// truncates ("longest_first", from the end); the special tokens always stay.
import type { Tokenizer } from "../../text/index.js";
import type { PairPiece } from "./pair-template.js";

export interface EncodedRecord {
  inputIds: Int32Array;
  /** Present for pairs. */
  tokenTypeIds?: Int32Array;
  /** Whether tokens were cut to fit maxLength. */
  truncated: boolean;
}

export class TextPairEncoder {
  private readonly prefix: number[];
  private readonly suffix: number[];
  private readonly pair: readonly PairPiece[];

  constructor(
    private readonly tokenizer: Tokenizer,
    readonly maxLength: number,
    pairTemplate?: readonly PairPiece[],
  ) {
    const probe = "a";
    const plain = tokenizer.encode(probe, { addSpecialTokens: false });
    const full = tokenizer.encode(probe);
    const at = findRun(full, plain);
    if (at < 0) throw new Error("the tokenizer's template does not hold the text's own tokens; cannot place a text in it");
    this.prefix = full.slice(0, at);
    this.suffix = full.slice(at + plain.length);
    this.pair = pairTemplate ?? [
      { special: this.prefix, typeId: 0 },
      { sequence: "A", typeId: 0 },
      { special: this.suffix, typeId: 0 },
      { sequence: "B", typeId: 1 },
      { special: this.suffix, typeId: 1 },
    ];
  }

  /** Special tokens a single text / a pair adds. */
  get specialsSingle(): number {
    return this.prefix.length + this.suffix.length;
  }

  get specialsPair(): number {
    return this.pair.reduce((n, piece) => n + ("special" in piece ? piece.special.length : 0), 0);
  }

  encode(text: string, pair?: string): EncodedRecord {
    const a = this.tokenizer.encode(text, { addSpecialTokens: false });
    if (pair === undefined) {
      const keep = Math.max(0, Math.min(a.length, this.maxLength - this.specialsSingle));
      return { inputIds: Int32Array.from([...this.prefix, ...a.slice(0, keep), ...this.suffix]), truncated: keep < a.length };
    }
    const b = this.tokenizer.encode(pair, { addSpecialTokens: false });
    const [keepA, keepB] = longestFirst(a.length, b.length, Math.max(0, this.maxLength - this.specialsPair));
    const ids: number[] = [];
    const types: number[] = [];
    for (const piece of this.pair) {
      const part = "special" in piece ? piece.special : piece.sequence === "A" ? a.slice(0, keepA) : b.slice(0, keepB);
      for (const id of part) {
        ids.push(id);
        types.push(piece.typeId);
      }
    }
    return { inputIds: Int32Array.from(ids), tokenTypeIds: Int32Array.from(types), truncated: keepA < a.length || keepB < b.length };
  }
}

/**
 * Lengths kept of two parts within `budget`, as `tokenizers` truncates a pair "longest_first": the
 * shorter part is kept whole when the longer can take the rest of the budget; otherwise the budget is
 * split in two, the extra token of an odd budget going to the part that was longer (to the pair on a tie).
 */
export function longestFirst(a: number, b: number, budget: number): [number, number] {
  if (a + b <= budget) return [a, b];
  const swap = a > b;
  let [short, long] = swap ? [b, a] : [a, b];
  long = short > budget ? short : Math.max(short, budget - short);
  if (short + long > budget) {
    short = Math.floor(budget / 2);
    long = short + (budget % 2);
  }
  return swap ? [long, short] : [short, long];
}

function findRun(haystack: readonly number[], needle: readonly number[]): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
