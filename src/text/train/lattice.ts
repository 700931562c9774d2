// Lattices of many short strings (the distinct words, or the pieces themselves) stored as flat edge
// lists: string s owns edges edgeBegin[s]..edgeBegin[s+1], each spanning [from, to) with a piece id,
// sorted by `from` (then `to`). Every position of a string has its single-character edge: the character
// piece, or <unk> for a character outside the coverage. Built once from a trie; later rounds only drop
// the edges of dead pieces.
import type { PieceTrie } from "../piece-trie.js";
import { UNK_PIECE, type PieceTable } from "./piece-table.js";
import { UNKNOWN_SYMBOL } from "./training-words.js";

export class Lattices {
  readonly strings: number;
  /** Symbols of string s: symbols[start[s], start[s + 1]). */
  readonly start: Int32Array;
  readonly weight: Float64Array;
  readonly edgeBegin: Int32Array;
  readonly edgeFrom: Int32Array;
  readonly edgeTo: Int32Array;
  readonly edgePiece: Int32Array;
  /** Length of the longest string. */
  readonly maxLength: number;
  /** Length of the longest edge (an upper bound once edges are dropped). */
  readonly maxEdgeLength: number;

  private constructor(start: Int32Array, weight: Float64Array, edgeBegin: Int32Array, from: Int32Array, to: Int32Array, piece: Int32Array) {
    this.strings = weight.length;
    this.start = start;
    this.weight = weight;
    this.edgeBegin = edgeBegin;
    this.edgeFrom = from;
    this.edgeTo = to;
    this.edgePiece = piece;
    let maxLength = 0;
    for (let s = 0; s < this.strings; s++) maxLength = Math.max(maxLength, start[s + 1] - start[s]);
    this.maxLength = maxLength;
    let maxEdgeLength = 1;
    for (let e = 0; e < edgeBegin[this.strings]; e++) maxEdgeLength = Math.max(maxEdgeLength, to[e] - from[e]);
    this.maxEdgeLength = maxEdgeLength;
  }

  /**
   * Lattices for strings symbols[start[s], start[s + 1]) over the live pieces of `pieces` found in `trie`.
   * `skipWhole(s)` names a piece whose edge over the whole of string s is left out (or -1).
   */
  static build(
    symbols: Int32Array,
    start: Int32Array,
    weight: Float64Array,
    trie: PieceTrie,
    pieces: PieceTable,
    skipWhole: (s: number) => number = () => -1,
  ): Lattices {
    const strings = weight.length;
    let capacity = Math.max(1024, (start[strings] - start[0]) * 4);
    let from = new Int32Array(capacity),
      to = new Int32Array(capacity),
      piece = new Int32Array(capacity);
    const edgeBegin = new Int32Array(strings + 1);
    const alive = pieces.alive;
    let e = 0;
    for (let s = 0; s < strings; s++) {
      edgeBegin[s] = e;
      const base = start[s],
        end = start[s + 1];
      const skip = skipWhole(s);
      for (let i = base; i < end; i++) {
        if (e + (end - i) + 1 > capacity) {
          capacity = Math.max(Math.ceil(capacity * 1.5), e + (end - i) + 1);
          from = grow(from, capacity);
          to = grow(to, capacity);
          piece = grow(piece, capacity);
        }
        if (symbols[i] === UNKNOWN_SYMBOL) {
          from[e] = i - base;
          to[e] = i - base + 1;
          piece[e++] = UNK_PIECE;
          continue;
        }
        let node = 0;
        for (let j = i; j < end; j++) {
          node = trie.child(node, symbols[j]);
          if (node < 0) break;
          const p = trie.pieceAt(node);
          // Single characters always stay: a dead one is scored as <unk>.
          if (p < 0 || (!alive[p] && j > i) || (p === skip && i === base && j === end - 1)) continue;
          from[e] = i - base;
          to[e] = j - base + 1;
          piece[e++] = p;
        }
      }
    }
    edgeBegin[strings] = e;
    // Views, not copies: a copy would briefly hold the edges twice, the peak of training's memory.
    return new Lattices(start, weight, edgeBegin, from.subarray(0, e), to.subarray(0, e), piece.subarray(0, e));
  }

  /** Drops the edges of dead multi-character pieces, in place. */
  compact(pieces: PieceTable): void {
    const alive = pieces.alive;
    const from = this.edgeFrom,
      to = this.edgeTo,
      piece = this.edgePiece,
      begin = this.edgeBegin;
    let kept = 0;
    for (let s = 0; s < this.strings; s++) {
      const first = begin[s],
        last = begin[s + 1];
      begin[s] = kept;
      for (let e = first; e < last; e++) {
        const p = piece[e];
        if (alive[p] || p === UNK_PIECE || pieces.isChar(p)) {
          from[kept] = from[e];
          to[kept] = to[e];
          piece[kept++] = p;
        }
      }
    }
    // The arrays keep their length; edgeBegin bounds the live part.
    begin[this.strings] = kept;
  }
}

function grow(a: Int32Array, capacity: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(capacity);
  b.set(a);
  return b;
}
