// The trainer's pieces, by id: 0 is <unk>, 1..C are the single characters (piece id = symbol id), and
// the rest are the seed substrings. Ids never change during training; pieces only die (alive = 0), so
// lattices built once stay valid and are merely thinned.
import { PieceTrie } from "../piece-trie.js";

export const UNK_PIECE = 0;

export class PieceTable {
  /** Piece p is spelled symbols[start[p], start[p] + length[p]). */
  readonly symbols: Int32Array;
  readonly start: Int32Array;
  readonly length: Int32Array;
  /** Number of single-character pieces (ids 1..charCount). */
  readonly charCount: number;
  readonly alive: Uint8Array;
  /** Current log-probability of each live piece. */
  readonly score: Float64Array;

  constructor(symbols: Int32Array, start: Int32Array, length: Int32Array, charCount: number, score: Float64Array) {
    this.symbols = symbols;
    this.start = start;
    this.length = length;
    this.charCount = charCount;
    this.score = score;
    this.alive = new Uint8Array(length.length).fill(1);
    this.alive[UNK_PIECE] = 0;
  }

  get size(): number {
    return this.length.length;
  }

  isChar(p: number): boolean {
    return p >= 1 && p <= this.charCount;
  }

  aliveCount(): number {
    let n = 0;
    for (let p = 0; p < this.alive.length; p++) n += this.alive[p];
    return n;
  }

  /** The lowest score among live pieces. */
  minScore(): number {
    let min = Infinity;
    for (let p = 0; p < this.alive.length; p++) if (this.alive[p] && this.score[p] < min) min = this.score[p];
    return min;
  }

  /** A trie over every piece's symbols (live or not: callers filter by `alive`). */
  buildTrie(): PieceTrie {
    const trie = new PieceTrie();
    for (let p = 1; p < this.size; p++) trie.insert(this.symbols, this.start[p], this.start[p] + this.length[p], p);
    return trie;
  }
}
