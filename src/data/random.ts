// The one random function the data layer uses: a stateless 32-bit hash of (key0, key1, counter).
//
// Every random draw (file order, shuffle buffer, validation split, MLM masking) is a pure function of
// its coordinates, so a pipeline can be replayed, resumed, or re-implemented elsewhere (e.g. inside a
// compiled training step with 32-bit integer ops) and produce the same bits. The finalizer is
// MurmurHash3's fmix32, which is a bijection: for a fixed key0, distinct (counter + key1) values give
// distinct outputs.

/** Hash of (key0, key1, counter), all treated as unsigned 32-bit. Returns an unsigned 32-bit integer. */
export function hash32(key0: number, key1: number, counter: number): number {
  let h = Math.imul((counter + key1) >>> 0, 0x9e3779b1) ^ key0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// Domains keep the uses of one seed apart. A draw hash32(seed, DOMAIN, i) equals hash32(seed, 0,
// i + DOMAIN), so a domain collides with MLM masking's epoch keys (hash32(seed, 0, epoch)) only for
// epochs beyond 2^30.
export const FILE_ORDER_DOMAIN = 0x40000000;
export const SHUFFLE_DOMAIN = 0x80000000;
export const SPLIT_DOMAIN = 0xc0000000;

/** A uniform float in [0, 1) from hash bits: the top 24 bits scaled by 2^-24 (exact in float32). */
export function uniform24(bits: number): number {
  return (bits >>> 8) * 2 ** -24;
}

/**
 * The integer threshold t such that `uniform24(bits) < p` ⇔ `(bits >>> 8) < t`, so integer-only
 * implementations make exactly the same decisions as this float comparison.
 */
export function threshold24(p: number): number {
  return Math.min(2 ** 24, Math.max(0, Math.ceil(p * 2 ** 24)));
}

/** A uniform integer in [0, n) for n ≤ 2^32 from 32 hash bits (multiply-shift; bias below n/2^32). */
export function uniformIndex(bits: number, n: number): number {
  return Math.floor((bits / 2 ** 32) * n);
}

/** Fisher–Yates shuffle of `items` (in place) with draws hash32(key, 0, i). */
export function shuffleInPlace<T>(items: T[], key: number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = uniformIndex(hash32(key, 0, i), i + 1);
    const tmp = items[i]!;
    items[i] = items[j]!;
    items[j] = tmp;
  }
  return items;
}
