// One round of EM over the word lattices. The E step is forward-backward: each piece's expected count,
// summed over words weighted by word frequency. The M step is SentencePiece's "Bayesianified" one
// (a digamma in place of the log, which acts as a sparse prior, after Liang's DP tutorial, ACL 2007): it
// drops pieces expected fewer than 0.5 times and sets log p = ψ(count) − ψ(total).
import type { Lattices } from "./lattice.js";
import { UNK_PIECE, type PieceTable } from "./piece-table.js";

/** SentencePiece and `tokenizers` put <unk> this far below the worst piece. */
export const UNK_PENALTY = 10;
const EXPECTED_COUNT_THRESHOLD = 0.5;
// exp() of a sum of log-probabilities stays above float64's smallest normal down to about −708.
const LINEAR_SPACE_LIMIT = 700;

/**
 * Log-probability of each piece as a lattice edge: its score if live, <unk>'s score for <unk> and for
 * dead single characters (they stand for <unk> there), −∞ for other dead pieces.
 */
export function edgeLogProbs(pieces: PieceTable): { logProb: Float64Array; unkLogProb: number } {
  const unkLogProb = pieces.minScore() - UNK_PENALTY;
  const logProb = new Float64Array(pieces.size);
  for (let p = 0; p < pieces.size; p++) {
    logProb[p] = pieces.alive[p] ? pieces.score[p] : p === UNK_PIECE || pieces.isChar(p) ? unkLogProb : -Infinity;
  }
  return { logProb, unkLogProb };
}

export interface ExpectedCounts {
  expected: Float64Array;
  /** Mean negative log-likelihood per word occurrence. */
  objective: number;
}

/** The E step over strings [from, to) of `lattices`, into a fresh array of expected counts. */
export function expectedCounts(lattices: Lattices, logProb: Float64Array, unkLogProb: number, from = 0, to = lattices.strings): ExpectedCounts {
  const expected = new Float64Array(logProb.length);
  const prob = logProb.map(Math.exp);
  const size = lattices.maxLength + 1;
  const alpha = new Float64Array(size), beta = new Float64Array(size);
  // Every position has an edge no worse than <unk>, so a string shorter than this cannot underflow.
  const linearLimit = Math.floor(LINEAR_SPACE_LIMIT / -unkLogProb);
  let logLikelihood = 0, occurrences = 0;
  const { start, weight, edgeBegin, edgeFrom, edgeTo, edgePiece } = lattices;
  for (let s = from; s < to; s++) {
    const n = start[s + 1] - start[s];
    const first = edgeBegin[s], last = edgeBegin[s + 1];
    const w = weight[s];
    let logZ: number;
    if (n <= linearLimit) {
      alpha.fill(0, 0, n + 1);
      beta.fill(0, 0, n + 1);
      alpha[0] = 1;
      for (let e = first; e < last; e++) alpha[edgeTo[e]] += alpha[edgeFrom[e]] * prob[edgePiece[e]];
      beta[n] = 1;
      for (let e = last - 1; e >= first; e--) beta[edgeFrom[e]] += prob[edgePiece[e]] * beta[edgeTo[e]];
      const z = alpha[n];
      const scale = w / z;
      for (let e = first; e < last; e++) {
        const p = edgePiece[e];
        expected[p] += alpha[edgeFrom[e]] * prob[p] * beta[edgeTo[e]] * scale;
      }
      logZ = Math.log(z);
    } else {
      logZ = expectedCountsLogSpace(lattices, s, logProb, alpha, beta, expected);
    }
    logLikelihood += w * logZ;
    occurrences += w;
  }
  return { expected, objective: -logLikelihood / Math.max(occurrences, 1) };
}

function logAdd(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

/** Forward-backward in log space, for strings too long for plain products. Returns log Z. */
function expectedCountsLogSpace(
  lattices: Lattices, s: number, logProb: Float64Array, alpha: Float64Array, beta: Float64Array, expected: Float64Array,
): number {
  const n = lattices.start[s + 1] - lattices.start[s];
  const first = lattices.edgeBegin[s], last = lattices.edgeBegin[s + 1];
  const { edgeFrom, edgeTo, edgePiece } = lattices;
  alpha.fill(-Infinity, 0, n + 1);
  beta.fill(-Infinity, 0, n + 1);
  alpha[0] = 0;
  for (let e = first; e < last; e++) alpha[edgeTo[e]] = logAdd(alpha[edgeTo[e]], alpha[edgeFrom[e]] + logProb[edgePiece[e]]);
  beta[n] = 0;
  for (let e = last - 1; e >= first; e--) beta[edgeFrom[e]] = logAdd(beta[edgeFrom[e]], logProb[edgePiece[e]] + beta[edgeTo[e]]);
  const logZ = alpha[n];
  const logWeight = Math.log(lattices.weight[s]);
  for (let e = first; e < last; e++) {
    const p = edgePiece[e];
    const logMarginal = alpha[edgeFrom[e]] + logProb[p] + beta[edgeTo[e]] - logZ;
    if (logMarginal > -Infinity) expected[p] += Math.exp(logMarginal + logWeight);
  }
  return logZ;
}

/** The digamma function ψ, by recurrence up to 7 and then its asymptotic series (as SentencePiece). */
export function digamma(x: number): number {
  let result = 0;
  for (; x < 7; x++) result -= 1 / x;
  x -= 0.5;
  const xx = 1 / x;
  const xx2 = xx * xx;
  const xx4 = xx2 * xx2;
  return result + Math.log(x) + (1 / 24) * xx2 - (7 / 960) * xx4 + (31 / 8064) * xx4 * xx2 - (127 / 30720) * xx4 * xx4;
}

/** The M step: kills rarely used pieces and rescores the rest. */
export function maximize(pieces: PieceTable, expected: Float64Array): void {
  let total = 0;
  for (let p = 1; p < pieces.size; p++) {
    if (!pieces.alive[p]) continue;
    if (expected[p] < EXPECTED_COUNT_THRESHOLD) pieces.alive[p] = 0;
    else total += expected[p];
  }
  const logTotal = digamma(total);
  for (let p = 1; p < pieces.size; p++) if (pieces.alive[p]) pieces.score[p] = digamma(expected[p]) - logTotal;
}
