// Pruning, as SentencePiece does it: estimate how much the corpus likelihood would drop if a piece were
// removed and its occurrences re-segmented by the piece's own second-best segmentation, then keep the
// pieces whose removal would cost most, shrinking the vocabulary by `shrinkingFactor` per round.
import type { PieceTrie } from "../piece-trie.js";
import { edgeLogProbs } from "./em.js";
import { Lattices } from "./lattice.js";
import { UNK_PIECE, type PieceTable } from "./piece-table.js";

/**
 * Best path of string s; fills `path` with the pieces on it (dead single characters as <unk>) and
 * returns their number.
 */
function bestPath(
  lattices: Lattices,
  s: number,
  logProb: Float64Array,
  alive: Uint8Array,
  best: Float64Array,
  bestEdge: Int32Array,
  path: Int32Array,
): number {
  const n = lattices.start[s + 1] - lattices.start[s];
  const first = lattices.edgeBegin[s],
    last = lattices.edgeBegin[s + 1];
  const { edgeFrom, edgeTo, edgePiece } = lattices;
  best.fill(-Infinity, 1, n + 1);
  best[0] = 0;
  for (let e = first; e < last; e++) {
    const candidate = best[edgeFrom[e]] + logProb[edgePiece[e]];
    if (candidate > best[edgeTo[e]]) {
      best[edgeTo[e]] = candidate;
      bestEdge[edgeTo[e]] = e;
    }
  }
  let length = 0;
  for (let at = n; at > 0; at = edgeFrom[bestEdge[at]]) {
    const p = edgePiece[bestEdge[at]];
    path[length++] = alive[p] ? p : UNK_PIECE;
  }
  return length;
}

export interface PruneOptions {
  /** Never prune below this many live pieces. */
  floor: number;
  shrinkingFactor: number;
}

/** One pruning round over `words`; returns the number of live pieces left. */
export function prune(pieces: PieceTable, words: Lattices, trie: PieceTrie, opts: PruneOptions): number {
  const logProb = edgeLogProbs(pieces);
  const alive = pieces.alive;
  // Pieces are substrings of words, so no string here is longer than the longest word.
  const size = words.maxLength + 1;
  const best = new Float64Array(size),
    bestEdge = new Int32Array(size),
    path = new Int32Array(size);

  // How often each piece is on the best path of the corpus.
  const freq = new Float64Array(pieces.size);
  let wordOccurrences = 0;
  for (let s = 0; s < words.strings; s++) {
    const length = bestPath(words, s, logProb, alive, best, bestEdge, path);
    const w = words.weight[s];
    for (let k = 0; k < length; k++) freq[path[k]] += w;
    wordOccurrences += w;
  }
  let sum = 0;
  for (let p = 1; p < pieces.size; p++) sum += freq[p];
  const logSum = Math.log(sum);

  // Each multi-character piece the corpus uses, segmented at its best without itself (an unused piece
  // is dropped anyway).
  const multi: number[] = [];
  for (let p = pieces.charCount + 1; p < pieces.size; p++) if (alive[p] && freq[p] > 0) multi.push(p);
  const ends = new Int32Array(multi.length + 1);
  for (let i = 0; i < multi.length; i++) ends[i + 1] = ends[i] + pieces.length[multi[i]];
  const spelled = new Int32Array(ends[multi.length]);
  multi.forEach((p, i) => spelled.set(pieces.symbols.subarray(pieces.start[p], pieces.start[p] + pieces.length[p]), ends[i]));
  const own = Lattices.build(spelled, ends, new Float64Array(multi.length).fill(1), trie, pieces, (i) => multi[i]);

  const keep = new Uint8Array(pieces.size);
  let kept = 0;
  const candidates: number[] = [];
  const loss = new Float64Array(pieces.size);
  for (let p = 1; p <= pieces.charCount; p++) {
    // A character has no other segmentation: it stays while the corpus uses it.
    if (alive[p] && freq[p] > 0) {
      keep[p] = 1;
      kept++;
    }
  }
  for (let i = 0; i < multi.length; i++) {
    const p = multi[i];
    const altLength = bestPath(own, i, logProb, alive, best, bestEdge, path);
    // The piece is used only where it beats its alternative; a piece that loses to it never is.
    if (best[pieces.length[p]] > pieces.score[p]) continue;
    const logProbPiece = Math.log(freq[p]) - logSum;
    // Removing p moves its count onto each piece of the alternative.
    const logSumAlt = Math.log(sum + freq[p] * (altLength - 1));
    let logProbAlt = 0;
    for (let k = 0; k < altLength; k++) logProbAlt += Math.log(freq[path[k]] + freq[p]) - logSumAlt;
    loss[p] = (freq[p] / wordOccurrences) * (logProbPiece - logProbAlt);
    candidates.push(p);
  }

  const target = Math.max(opts.floor, Math.trunc(opts.shrinkingFactor * pieces.aliveCount()));
  candidates.sort((a, b) => loss[b] - loss[a] || a - b);
  for (const p of candidates) {
    if (kept >= target) break;
    keep[p] = 1;
    kept++;
  }
  for (let p = 1; p < pieces.size; p++) alive[p] = keep[p];
  return kept;
}
