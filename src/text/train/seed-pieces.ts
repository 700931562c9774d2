// Seed pieces, as SentencePiece makes them: every character, plus the frequent substrings found as
// internal nodes of a suffix tree, scored by how many characters they cover (frequency × length) and
// turned into log-probabilities.
//
// SentencePiece builds its suffix array over the whole corpus. Pieces never cross a word boundary, so the
// same substrings and counts come from the distinct words alone, each suffix weighted by its word's
// count: a suffix array over ~0.6 M symbols instead of ~11 M for SOTU. Common prefixes are cut at word
// ends, which makes an ending shared by two words ("ing" in "▁doing" and "▁going") a node as well.
import { lcpArray, suffixArray } from "./suffix-array.js";
import { PieceTable } from "./piece-table.js";
import { UNKNOWN_SYMBOL, type TrainingWords } from "./training-words.js";

export interface SeedOptions {
  maxPieceLength: number;
  /** At most this many substrings (besides the characters) are kept, the best-scoring ones. */
  seedSize: number;
}

// Text symbols: 0 ends the text, 1 separates words (and stands in for uncovered characters, which no
// piece may contain), symbol s becomes s + 2.
const END = 0;
const BOUNDARY = 1;

interface Candidates {
  offset: Int32Array;
  length: Int32Array;
  score: Float64Array;
  count: number;
}

export function seedPieces(words: TrainingWords, opts: SeedOptions): PieceTable {
  const wordCount = words.count.length;
  const n = words.symbols.length + wordCount + 1;
  const text = new Int32Array(n);
  const weight = new Float64Array(n);
  let at = 0;
  for (let w = 0; w < wordCount; w++) {
    for (let i = words.start[w]; i < words.start[w + 1]; i++) {
      const s = words.symbols[i];
      text[at] = s === UNKNOWN_SYMBOL ? BOUNDARY : s + 2;
      weight[at++] = words.count[w];
    }
    text[at++] = BOUNDARY;
  }
  text[at] = END;

  // room[i]: symbols from i up to the next boundary; no piece starting at i can be longer.
  const room = new Int32Array(n);
  for (let i = n - 2; i >= 0; i--) room[i] = text[i] <= BOUNDARY ? 0 : room[i + 1] + 1;

  const sa = suffixArray(text, words.codePoints.length + 2);
  const lcp = lcpArray(text, sa);
  const weightBefore = new Float64Array(n + 1);
  for (let k = 0; k < n; k++) {
    weightBefore[k + 1] = weightBefore[k] + weight[sa[k]];
    if (k > 0) lcp[k] = Math.min(lcp[k], room[sa[k]], room[sa[k - 1]]);
  }

  const candidates = internalNodes(sa, lcp, weightBefore, opts.maxPieceLength);
  return pieceTable(words, text, selectBest(candidates, opts.seedSize));
}

/**
 * The lcp-intervals (internal suffix-tree nodes) of depth 2..maxLength, found bottom-up with a stack
 * (Abouelhoda, Kurtz & Ohlebusch, 2004). An interval [lb, rb] of depth d is the substring of length d
 * shared by suffixes sa[lb..rb]; its corpus frequency is the total weight of those suffixes.
 */
function internalNodes(sa: Int32Array, lcp: Int32Array, weightBefore: Float64Array, maxLength: number): Candidates {
  const n = sa.length;
  let capacity = 1 << 16;
  let offset = new Int32Array(capacity),
    length = new Int32Array(capacity),
    score = new Float64Array(capacity);
  let count = 0;
  const stackDepth = new Int32Array(n + 1);
  const stackLeft = new Int32Array(n + 1);
  let top = 0; // stack[0] is the root interval, depth 0
  for (let i = 1; i <= n; i++) {
    const depth = i < n ? lcp[i] : 0;
    let left = i - 1;
    while (depth < stackDepth[top]) {
      const d = stackDepth[top];
      left = stackLeft[top];
      top--;
      if (d >= 2 && d <= maxLength) {
        if (count === capacity) {
          capacity *= 2;
          offset = resized(offset, capacity);
          length = resized(length, capacity);
          score = resized(score, capacity);
        }
        offset[count] = sa[left];
        length[count] = d;
        score[count] = (weightBefore[i] - weightBefore[left]) * d;
        count++;
      }
    }
    if (depth > stackDepth[top]) {
      top++;
      stackDepth[top] = depth;
      stackLeft[top] = left;
    }
  }
  return { offset, length, score, count };
}

/** The `limit` best candidates by score (ties: earlier in suffix order first, for determinism). */
function selectBest(c: Candidates, limit: number): Candidates {
  if (c.count <= limit) return c;
  const order = Array.from({ length: c.count }, (_, i) => i).sort((a, b) => c.score[b] - c.score[a] || a - b);
  const keep = order.slice(0, limit);
  return {
    offset: Int32Array.from(keep, (i) => c.offset[i]),
    length: Int32Array.from(keep, (i) => c.length[i]),
    score: Float64Array.from(keep, (i) => c.score[i]),
    count: limit,
  };
}

function pieceTable(words: TrainingWords, text: Int32Array, c: Candidates): PieceTable {
  const charCount = words.codePoints.length - 1;
  const size = 1 + charCount + c.count;
  const start = new Int32Array(size);
  const length = new Int32Array(size);
  const frequency = new Float64Array(size);
  let total = charCount;
  for (let i = 0; i < c.count; i++) total += c.length[i];
  const symbols = new Int32Array(total);
  let at = 0;
  for (let s = 1; s <= charCount; s++) {
    start[s] = at;
    length[s] = 1;
    symbols[at++] = s;
    frequency[s] = words.symbolCount[s];
  }
  for (let i = 0; i < c.count; i++) {
    const p = 1 + charCount + i;
    start[p] = at;
    length[p] = c.length[i];
    for (let k = 0; k < c.length[i]; k++) symbols[at++] = text[c.offset[i] + k] - 2;
    frequency[p] = c.score[i];
  }
  let sum = 0;
  for (let p = 1; p < size; p++) sum += frequency[p];
  const logSum = Math.log(sum);
  const score = new Float64Array(size);
  for (let p = 1; p < size; p++) score[p] = Math.log(frequency[p]) - logSum;
  return new PieceTable(symbols, start, length, charCount, score);
}

function resized<T extends Int32Array | Float64Array>(a: T, capacity: number): T {
  const b = new (a.constructor as new (n: number) => T)(capacity);
  b.set(a.subarray(0, Math.min(a.length, capacity)));
  return b;
}
