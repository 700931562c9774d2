// The Unigram model at encoding time: the best-scoring segmentation of one pre-tokenized word, computed
// exactly as Hugging Face `tokenizers` does (its `encode_optimized`), so ids agree one for one:
// - candidates are every vocabulary entry (special tokens included) that matches at a character start;
// - a character that no single-character entry covers becomes <unk> with score min_score - 10;
// - a later candidate replaces the best path into a position only when strictly better, visiting start
//   positions left to right and, per start, shorter matches first;
// - consecutive <unk>s fuse into one token.
// Scores are added in float64 in the same order as there, so even ties break the same way.
import { PieceTrie } from "./piece-trie.js";

const UNK_PENALTY = 10;

export class UnigramModel {
  readonly pieces: readonly string[];
  readonly scores: Float64Array;
  readonly unkId: number;
  private readonly trie: PieceTrie;
  private readonly idOf: Map<string, number>;
  private readonly unkScore: number;
  // Scratch space for the dynamic programme, grown on demand.
  private bestScore = new Float64Array(64);
  private bestStart = new Int32Array(64);
  private bestId = new Int32Array(64);

  constructor(vocab: ReadonlyArray<readonly [string, number]>, unkId: number) {
    this.pieces = vocab.map(([piece]) => piece);
    this.scores = Float64Array.from(vocab, ([, score]) => score);
    this.unkId = unkId;
    this.trie = new PieceTrie();
    this.idOf = new Map();
    let minScore = Infinity;
    for (let id = 0; id < vocab.length; id++) {
      const piece = this.pieces[id];
      const codes = new Uint16Array(piece.length);
      for (let i = 0; i < piece.length; i++) codes[i] = piece.charCodeAt(i);
      this.trie.insert(codes, 0, codes.length, id);
      // Like `tokenizers`, a repeated piece resolves to its last id.
      this.idOf.set(piece, id);
      if (this.scores[id] < minScore) minScore = this.scores[id];
    }
    this.unkScore = minScore - UNK_PENALTY;
  }

  get size(): number {
    return this.pieces.length;
  }

  idOfPiece(piece: string): number | undefined {
    return this.idOf.get(piece);
  }

  /**
   * Appends the ids of the best segmentation of `word` (a Metaspace word, '▁' included) to `out`, and
   * where given, each token's end (in UTF-16 units of `word`) to `ends`.
   */
  encodeWord(word: string, out: number[], ends?: number[]): void {
    const n = word.length;
    if (n === 0) return;
    if (this.bestScore.length <= n) this.grow(n + 1);
    const bestScore = this.bestScore,
      bestStart = this.bestStart,
      bestId = this.bestId;
    bestStart.fill(-1, 0, n + 1);
    bestScore[0] = 0;
    const trie = this.trie,
      scores = this.scores;
    for (let start = 0; start < n; start++) {
      const code = word.charCodeAt(start);
      // Paths only start at character boundaries: never inside a surrogate pair.
      if (code >= 0xdc00 && code <= 0xdfff && start > 0 && isHighSurrogate(word.charCodeAt(start - 1))) continue;
      const charLength = isHighSurrogate(code) && start + 1 < n && isLowSurrogate(word.charCodeAt(start + 1)) ? 2 : 1;
      const scoreHere = bestScore[start];
      let coversChar = false;
      let node = 0;
      for (let end = start; end < n; end++) {
        node = trie.child(node, word.charCodeAt(end));
        if (node < 0) break;
        const id = trie.pieceAt(node);
        if (id < 0) continue;
        const candidate = scoreHere + scores[id];
        const target = end + 1;
        if (bestStart[target] < 0 || candidate > bestScore[target]) {
          bestScore[target] = candidate;
          bestStart[target] = start;
          bestId[target] = id;
        }
        if (target - start === charLength) coversChar = true;
      }
      if (!coversChar) {
        const target = start + charLength;
        const candidate = scoreHere + this.unkScore;
        if (bestStart[target] < 0 || candidate > bestScore[target]) {
          bestScore[target] = candidate;
          bestStart[target] = start;
          bestId[target] = this.unkId;
        }
      }
    }
    this.emitPath(word, out, ends);
  }

  private emitPath(word: string, out: number[], ends: number[] | undefined): void {
    const bestStart = this.bestStart,
      bestId = this.bestId;
    const firstOut = out.length;
    const firstEnd = ends?.length ?? 0;
    let end = word.length;
    let unkRunEnd = -1; // end of the run of <unk>s being fused, while walking backwards
    while (end > 0) {
      const start = bestStart[end];
      const id = bestId[end];
      if (id === this.unkId) {
        if (unkRunEnd < 0) unkRunEnd = end;
      } else {
        if (unkRunEnd >= 0) {
          out.push(this.fusedUnkId(word, end, unkRunEnd));
          ends?.push(unkRunEnd);
        }
        unkRunEnd = -1;
        out.push(id);
        ends?.push(end);
      }
      end = start;
    }
    if (unkRunEnd >= 0) {
      out.push(this.fusedUnkId(word, 0, unkRunEnd));
      ends?.push(unkRunEnd);
    }
    reverseTail(out, firstOut);
    if (ends) reverseTail(ends, firstEnd);
  }

  // `tokenizers` maps the fused text back through the vocabulary; it can only be <unk>, since any entry
  // spelling it would have out-scored a run of <unk>s, but the lookup keeps the two sides identical.
  private fusedUnkId(word: string, start: number, end: number): number {
    return this.idOf.get(word.slice(start, end)) ?? this.unkId;
  }

  private grow(size: number): void {
    let capacity = this.bestScore.length;
    while (capacity < size) capacity *= 2;
    this.bestScore = new Float64Array(capacity);
    this.bestStart = new Int32Array(capacity);
    this.bestId = new Int32Array(capacity);
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function reverseTail(out: number[], from: number): void {
  for (let i = from, j = out.length - 1; i < j; i++, j--) {
    const t = out[i];
    out[i] = out[j];
    out[j] = t;
  }
}
