// The final vocabulary, as SentencePiece settles it: every required character (a character that lost
// its piece in training comes back just below the worst score, the more frequent ones higher), then the
// best-scoring pieces until the vocabulary is full, all ordered by score.
import type { PieceTable } from "./piece-table.js";
import type { TrainingWords } from "./training-words.js";

const MISSING_CHAR_PENALTY_STEP = 0.0001;

function pieceText(pieces: PieceTable, words: TrainingWords, p: number): string {
  let text = "";
  for (let k = pieces.start[p]; k < pieces.start[p] + pieces.length[p]; k++)
    text += String.fromCodePoint(words.codePoints[pieces.symbols[k]]);
  return text;
}

function byScoreThenText(a: readonly [string, number], b: readonly [string, number]): number {
  return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

/**
 * `size` pieces with scores, best first. Pieces spelled like one of `reserved` (the special tokens) are
 * left out: those strings already have their ids.
 */
export function finalPieces(
  pieces: PieceTable,
  words: TrainingWords,
  size: number,
  reserved: ReadonlySet<string>,
): Array<[string, number]> {
  const chosen = new Map<string, number>();
  const minScore = pieces.minScore();
  let penalty = 0;
  // Characters are numbered by falling frequency, so the frequent ones get the smaller penalties.
  for (let c = 1; c <= pieces.charCount; c++) {
    const text = pieceText(pieces, words, c);
    if (reserved.has(text)) continue;
    if (pieces.alive[c]) {
      chosen.set(text, pieces.score[c]);
    } else {
      chosen.set(text, minScore + penalty);
      penalty += MISSING_CHAR_PENALTY_STEP;
    }
  }
  const rest: Array<[string, number]> = [];
  for (let p = pieces.charCount + 1; p < pieces.size; p++) {
    if (pieces.alive[p]) rest.push([pieceText(pieces, words, p), pieces.score[p]]);
  }
  rest.sort(byScoreThenText);
  for (const [text, score] of rest) {
    if (chosen.size >= size) break;
    if (!reserved.has(text)) chosen.set(text, score);
  }
  return [...chosen].sort(byScoreThenText);
}
