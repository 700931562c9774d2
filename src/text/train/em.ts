// One round of EM over the word lattices. The E step is forward-backward: each piece's expected count,
// summed over words weighted by word frequency. The M step is SentencePiece's "Bayesianified" one
// (a digamma in place of the log, which acts as a sparse prior, after Liang's DP tutorial, ACL 2007): it
// drops pieces expected fewer than 0.5 times and sets log p = ψ(count) − ψ(total).
import type { Lattices } from "./lattice.js";
import { UNK_PIECE, type PieceTable } from "./piece-table.js";

/** SentencePiece and `tokenizers` put <unk> this far below the worst piece. */
export const UNK_PENALTY = 10;
const EXPECTED_COUNT_THRESHOLD = 0.5;
// Scaled forward/backward values outside this range have lost precision: redo that string in log space.
const TINY = 1e-280;
const HUGE = 1e280;
// exp() of a sum of log-probabilities stays above float64's smallest normal down to about −708.
const PLAIN_PRODUCT_LIMIT = 700;

/**
 * Log-probability of each piece as a lattice edge: its score if live, <unk>'s score for <unk> and for
 * dead single characters (they stand for <unk> there), −∞ for other dead pieces.
 */
export function edgeLogProbs(pieces: PieceTable): Float64Array {
  const unkLogProb = pieces.minScore() - UNK_PENALTY;
  const logProb = new Float64Array(pieces.size);
  for (let p = 0; p < pieces.size; p++) {
    logProb[p] = pieces.alive[p] ? pieces.score[p] : p === UNK_PIECE || pieces.isChar(p) ? unkLogProb : -Infinity;
  }
  return logProb;
}

export interface ExpectedCounts {
  expected: Float64Array;
  /** Mean negative log-likelihood per word occurrence. */
  objective: number;
}

/**
 * Forward-backward for long strings: still plain products (no exp or log per edge), kept in range by
 * rescaling block by block. Blocks are `maxEdgeLength` positions long, so an edge stays inside its
 * block or reaches the next one, and one factor per block pair (same, next) restores true marginals.
 */
class ScaledForwardBackward {
  private readonly alpha: Float64Array;
  private readonly beta: Float64Array;
  private readonly blockOf: Int32Array;
  /** Log scale of each block's stored values: true value = stored × exp(scale). */
  private readonly alphaScale: Float64Array;
  private readonly betaScale: Float64Array;
  private readonly sameBlock: Float64Array;
  private readonly nextBlock: Float64Array;
  private readonly blockLength: number;

  constructor(private readonly lattices: Lattices) {
    const size = lattices.maxLength + 1;
    const blockLength = lattices.maxEdgeLength;
    const blocks = Math.floor(lattices.maxLength / blockLength) + 1;
    this.blockLength = blockLength;
    this.alpha = new Float64Array(size);
    this.beta = new Float64Array(size);
    this.blockOf = Int32Array.from({ length: size }, (_, pos) => Math.floor(pos / blockLength));
    this.alphaScale = new Float64Array(blocks);
    this.betaScale = new Float64Array(blocks);
    this.sameBlock = new Float64Array(blocks);
    this.nextBlock = new Float64Array(blocks);
  }

  /** The largest of values[from, to), or NaN when the smallest is too far below it to trust. */
  private static largest(values: Float64Array, from: number, to: number): number {
    let max = 0,
      min = Infinity;
    for (let j = from; j < to; j++) {
      if (values[j] > max) max = values[j];
      if (values[j] < min) min = values[j];
    }
    return min > TINY * max && max > TINY && max < HUGE ? max : NaN;
  }

  /** Adds string s's weighted expected counts to `expected` and returns log Z; NaN (adding nothing) if precision ran out. */
  run(s: number, prob: Float64Array, expected: Float64Array): number {
    const { start, edgeBegin, edgeFrom, edgeTo, edgePiece, weight } = this.lattices;
    const { alpha, beta, blockOf, alphaScale, betaScale, sameBlock, nextBlock, blockLength: B } = this;
    const n = start[s + 1] - start[s];
    const first = edgeBegin[s],
      last = edgeBegin[s + 1];
    const lastBlock = blockOf[n];
    const blockEnd = (b: number) => Math.min((b + 1) * B, n + 1);

    // Forward, edges in order of their start. On entering block b, block b-1 is complete; the sums
    // already pushed into block b are divided by its largest value, which sets block b's scale.
    alpha.fill(0, 0, n + 1);
    alpha[0] = 1;
    alphaScale[0] = 0;
    let block = 0;
    for (let e = first; e <= last; e++) {
      const from = e < last ? edgeFrom[e] : n;
      while (blockOf[from] > block) {
        const max = ScaledForwardBackward.largest(alpha, block * B, blockEnd(block));
        if (Number.isNaN(max)) return NaN;
        block++;
        alphaScale[block] = alphaScale[block - 1] + Math.log(max);
        for (let j = block * B; j < blockEnd(block); j++) alpha[j] /= max;
      }
      if (e < last) alpha[edgeTo[e]] += alpha[from] * prob[edgePiece[e]];
    }
    if (Number.isNaN(ScaledForwardBackward.largest(alpha, lastBlock * B, n + 1))) return NaN;
    const logZ = Math.log(alpha[n]) + alphaScale[lastBlock];

    // Backward, edges in reverse order. On leaving block b+1 downwards it is complete; dividing it by
    // its largest value puts it in the scale in which block b is then computed.
    beta.fill(0, 0, n + 1);
    beta[n] = 1;
    let scale = 0;
    block = lastBlock;
    for (let e = last - 1; e >= first; e--) {
      const from = edgeFrom[e];
      while (blockOf[from] < block) {
        const max = ScaledForwardBackward.largest(beta, block * B, blockEnd(block));
        if (Number.isNaN(max)) return NaN;
        for (let j = block * B; j < blockEnd(block); j++) beta[j] /= max;
        scale += Math.log(max);
        betaScale[block--] = scale;
      }
      beta[from] += prob[edgePiece[e]] * beta[edgeTo[e]];
    }
    if (Number.isNaN(ScaledForwardBackward.largest(beta, 0, blockEnd(0)))) return NaN;
    betaScale[0] = scale;

    for (let b = 0; b <= lastBlock; b++) {
      sameBlock[b] = weight[s] * Math.exp(alphaScale[b] + betaScale[b] - logZ);
      if (b < lastBlock) nextBlock[b] = weight[s] * Math.exp(alphaScale[b] + betaScale[b + 1] - logZ);
    }
    for (let e = first; e < last; e++) {
      const from = edgeFrom[e],
        to = edgeTo[e],
        p = edgePiece[e];
      const b = blockOf[from];
      expected[p] += alpha[from] * prob[p] * beta[to] * (blockOf[to] === b ? sameBlock[b] : nextBlock[b]);
    }
    return logZ;
  }
}

/**
 * Forward-backward with plain products for a string short enough that no path can underflow: every
 * position has an edge at least as likely as <unk>. Adds to `expected`, returns log Z.
 */
function addExpectedCountsShort(
  lattices: Lattices,
  s: number,
  prob: Float64Array,
  alpha: Float64Array,
  beta: Float64Array,
  expected: Float64Array,
): number {
  const n = lattices.start[s + 1] - lattices.start[s];
  const first = lattices.edgeBegin[s],
    last = lattices.edgeBegin[s + 1];
  const { edgeFrom, edgeTo, edgePiece } = lattices;
  alpha.fill(0, 0, n + 1);
  beta.fill(0, 0, n + 1);
  alpha[0] = 1;
  for (let e = first; e < last; e++) alpha[edgeTo[e]] += alpha[edgeFrom[e]] * prob[edgePiece[e]];
  beta[n] = 1;
  for (let e = last - 1; e >= first; e--) beta[edgeFrom[e]] += prob[edgePiece[e]] * beta[edgeTo[e]];
  const scale = lattices.weight[s] / alpha[n];
  for (let e = first; e < last; e++) {
    const p = edgePiece[e];
    expected[p] += alpha[edgeFrom[e]] * prob[p] * beta[edgeTo[e]] * scale;
  }
  return Math.log(alpha[n]);
}

/** The E step: every piece's expected count over all strings of `lattices`, weighted. */
export function expectedCounts(lattices: Lattices, logProb: Float64Array): ExpectedCounts {
  const expected = new Float64Array(logProb.length);
  const prob = logProb.map(Math.exp);
  let worstLogProb = 0;
  for (const lp of logProb) if (lp > -Infinity && lp < worstLogProb) worstLogProb = lp;
  const shortLimit = Math.floor(PLAIN_PRODUCT_LIMIT / Math.max(-worstLogProb, 1e-300));
  const scaled = new ScaledForwardBackward(lattices);
  const alpha = new Float64Array(lattices.maxLength + 1),
    beta = new Float64Array(lattices.maxLength + 1);
  let logLikelihood = 0,
    occurrences = 0;
  for (let s = 0; s < lattices.strings; s++) {
    const n = lattices.start[s + 1] - lattices.start[s];
    let logZ = n <= shortLimit ? addExpectedCountsShort(lattices, s, prob, alpha, beta, expected) : scaled.run(s, prob, expected);
    if (Number.isNaN(logZ)) logZ = addExpectedCountsInLogSpace(lattices, s, logProb, expected);
    const w = lattices.weight[s];
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

/**
 * Forward-backward for string s in log space: slower (an exp and a log per edge) but immune to range
 * trouble; the fallback when scaled products lose precision. Adds to `expected`, returns log Z.
 */
export function addExpectedCountsInLogSpace(lattices: Lattices, s: number, logProb: Float64Array, expected: Float64Array): number {
  const n = lattices.start[s + 1] - lattices.start[s];
  const first = lattices.edgeBegin[s],
    last = lattices.edgeBegin[s + 1];
  const { edgeFrom, edgeTo, edgePiece } = lattices;
  const alpha = new Float64Array(n + 1).fill(-Infinity);
  const beta = new Float64Array(n + 1).fill(-Infinity);
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
