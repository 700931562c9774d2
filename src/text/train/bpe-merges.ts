// The merge loop of `tokenizers`' BpeTrainer, step for step, so that the same word counts give the same
// vocabulary and merges: special tokens take the first ids, then the alphabet (every character of the
// words, plus the initial alphabet, minus the rarest past limitAlphabet) in code point order, then, while
// the vocabulary is short, the most frequent adjacent pair is merged (ties: the pair of smaller ids). As
// there, a heap entry carries the words where its pair was counted; an entry whose count went stale is
// pushed back with the current count, and a merged pair's own count is left as it was, so an entry of
// the same pair pushed later (new occurrences) merges those words too.

import { BinaryHeap } from "../binary-heap.js";

const PAIR = 2097152; // 2^21: ids stay below it, so a pair packs into one number

export interface BpeMergeOptions {
  vocabSize: number;
  specialTokens: readonly string[];
  /** Pairs seen fewer times are not merged. Default 0. */
  minFrequency?: number;
  /** Keep at most this many characters in the alphabet (the most frequent). */
  limitAlphabet?: number;
  /** Characters in the alphabet whether or not the corpus has them. */
  initialAlphabet?: readonly string[];
  /** Spelling of a token that continues a word ("##" for WordPiece). */
  continuingSubwordPrefix?: string;
}

export interface BpeMergeResult {
  /** Tokens by id. */
  vocab: string[];
  /** The merges in rank order, each [left, right]. */
  merges: Array<[string, string]>;
}

interface Entry {
  count: number;
  pair: number;
  words: Set<number>;
  order: number;
}

/** Higher count first; then the smaller pair (left id, then right id); then the older entry. */
function before(a: Entry, b: Entry): boolean {
  if (a.count !== b.count) return a.count > b.count;
  if (a.pair !== b.pair) return a.pair < b.pair;
  return a.order < b.order;
}

/** Learns BPE merges from word counts (each word a pre-tokenized piece of the corpus). */
export function learnBpe(wordCounts: ReadonlyMap<string, number>, opts: BpeMergeOptions): BpeMergeResult {
  const prefix = opts.continuingSubwordPrefix ?? "";
  const minFrequency = opts.minFrequency ?? 0;
  const vocab: string[] = [];
  const idOf = new Map<string, number>();
  const add = (token: string): number => {
    let id = idOf.get(token);
    if (id === undefined) {
      id = vocab.length;
      vocab.push(token);
      idOf.set(token, id);
    }
    return id;
  };
  for (const t of opts.specialTokens) add(t);

  // The alphabet: character counts over the corpus; the initial alphabet always stays.
  const charCount = new Map<string, number>();
  for (const [word, count] of wordCounts) for (const c of word) charCount.set(c, (charCount.get(c) ?? 0) + count);
  for (const c of opts.initialAlphabet ?? []) charCount.set(c, Infinity);
  let kept = [...charCount.entries()];
  const toRemove = opts.limitAlphabet !== undefined ? Math.max(0, kept.length - opts.limitAlphabet) : 0;
  if (toRemove > 0) kept = kept.sort((a, b) => a[1] - b[1]).slice(toRemove);
  kept.sort((a, b) => a[0].codePointAt(0)! - b[0].codePointAt(0)!);
  for (const [c] of kept) add(c);

  // Words as symbol ids; characters left out of the alphabet are dropped, as there.
  const words: number[][] = [];
  const counts: number[] = [];
  for (const [word, count] of wordCounts) {
    const symbols: number[] = [];
    const chars = [...word];
    chars.forEach((c, i) => {
      if (!idOf.has(c)) return;
      symbols.push(add(i > 0 && prefix ? prefix + c : c));
    });
    words.push(symbols);
    counts.push(count);
  }

  const pairCount = new Map<number, number>();
  let where = new Map<number, Set<number>>();
  words.forEach((w, i) => {
    for (let k = 0; k + 1 < w.length; k++) {
      const p = w[k]! * PAIR + w[k + 1]!;
      pairCount.set(p, (pairCount.get(p) ?? 0) + counts[i]!);
      let s = where.get(p);
      if (!s) where.set(p, (s = new Set()));
      s.add(i);
    }
  });
  const heap = new BinaryHeap<Entry>(before);
  let order = 0;
  const flush = (): void => {
    for (const [pair, ws] of where) {
      const count = pairCount.get(pair)!;
      if (count > 0) heap.push({ count, pair, words: ws, order: order++ });
    }
    where = new Map();
  };
  flush();

  const merges: Array<[string, string]> = [];
  while (vocab.length < opts.vocabSize && heap.size > 0) {
    const top = heap.pop()!;
    const current = pairCount.get(top.pair)!;
    if (top.count !== current) {
      top.count = current;
      top.order = order++;
      heap.push(top);
      continue;
    }
    if (top.count < 1 || minFrequency > top.count) break;
    const a = Math.floor(top.pair / PAIR),
      b = top.pair % PAIR;
    let right = vocab[b]!;
    if (prefix && right.startsWith(prefix)) right = right.slice(prefix.length);
    const merged = add(vocab[a]! + right);
    merges.push([vocab[a]!, vocab[b]!]);
    for (const wi of top.words) {
      const w = words[wi]!;
      const count = counts[wi]!;
      const change = (p: number, delta: number): void => {
        pairCount.set(p, (pairCount.get(p) ?? 0) + delta * count);
        if (delta > 0) {
          let s = where.get(p);
          if (!s) where.set(p, (s = new Set()));
          s.add(wi);
        }
      };
      for (let i = 0; i < w.length; i++) {
        if (w[i] !== a || i + 1 >= w.length || w[i + 1] !== b) continue;
        if (i > 0) {
          change(w[i - 1]! * PAIR + a, -1);
          change(w[i - 1]! * PAIR + merged, 1);
        }
        w.splice(i, 2, merged);
        if (i < w.length - 1) {
          change(b * PAIR + w[i + 1]!, -1);
          change(merged * PAIR + w[i + 1]!, 1);
        }
      }
    }
    flush();
  }
  return { vocab, merges };
}
