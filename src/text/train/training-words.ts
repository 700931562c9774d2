// The counted words turned into what the trainer works on: each distinct word ('▁' + body) as a run of
// dense symbol ids, with its count. Symbols are the characters that the character coverage keeps,
// numbered 1..C by falling frequency; every other character becomes symbol 0, which no piece may hold
// (it can only be <unk>), as SentencePiece does with rare characters.
import { METASPACE } from "../metaspace.js";
import type { WordCounter } from "./word-counter.js";

export const UNKNOWN_SYMBOL = 0;

export interface TrainingWords {
  /** Symbols of all words, back to back. */
  symbols: Int32Array;
  /** Word w is symbols[start[w], start[w + 1]). */
  start: Int32Array;
  count: Float64Array;
  /** Code point of each symbol id; entry 0 (unknown) is unused. */
  codePoints: Int32Array;
  /** How often each symbol occurs in the corpus. */
  symbolCount: Float64Array;
  /** Distinct characters in the corpus, covered or not. */
  distinctChars: number;
}

/** Code points of '▁' + body for each counted word. */
function forEachWordCodePoint(counter: WordCounter, fn: (codePoint: number, count: number) => void, onWordEnd: () => void): void {
  const meta = METASPACE.codePointAt(0)!;
  counter.forEach((units, start, length, count) => {
    fn(meta, count);
    const end = start + length;
    for (let i = start; i < end; i++) {
      const c = units[i];
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < end && units[i + 1] >= 0xdc00 && units[i + 1] <= 0xdfff) {
        fn(((c - 0xd800) << 10) + (units[i + 1] - 0xdc00) + 0x10000, count);
        i++;
      } else {
        fn(c, count);
      }
    }
    onWordEnd();
  });
}

/**
 * Keeps the most frequent characters until they cover `characterCoverage` of all character occurrences
 * (1 keeps every character).
 */
export function trainingWords(counter: WordCounter, characterCoverage: number): TrainingWords {
  const charCounts = new Map<number, number>();
  let totalSymbols = 0;
  forEachWordCodePoint(
    counter,
    (cp, count) => {
      charCounts.set(cp, (charCounts.get(cp) ?? 0) + count);
      totalSymbols++;
    },
    () => {},
  );

  const byFrequency = [...charCounts].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const all = byFrequency.reduce((sum, [, count]) => sum + count, 0);
  const symbolOf = new Map<number, number>();
  const codePoints: number[] = [0];
  const symbolCount: number[] = [0];
  let covered = 0;
  for (const [cp, count] of byFrequency) {
    if (characterCoverage < 1 && covered / all >= characterCoverage) break;
    covered += count;
    symbolOf.set(cp, codePoints.length);
    codePoints.push(cp);
    symbolCount.push(count);
  }

  const symbols = new Int32Array(totalSymbols);
  const start = new Int32Array(counter.size + 1);
  const count = new Float64Array(counter.size);
  let at = 0;
  let word = 0;
  forEachWordCodePoint(
    counter,
    (cp, c) => {
      symbols[at++] = symbolOf.get(cp) ?? UNKNOWN_SYMBOL;
      count[word] = c;
    },
    () => {
      start[++word] = at;
    },
  );
  return {
    symbols,
    start,
    count,
    codePoints: Int32Array.from(codePoints),
    symbolCount: Float64Array.from(symbolCount),
    distinctChars: charCounts.size,
  };
}
