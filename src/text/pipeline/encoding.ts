// What encoding a text gives: ids with, per token, its string, type id, offsets in the original text
// (UTF-16 indices: `text.slice(start, end)`; special and padding tokens get [0, 0]), whether it is a
// special token, and the attention mask, as `tokenizers`' Encoding holds them.

export interface Encoding {
  ids: number[];
  tokens: string[];
  typeIds: number[];
  offsets: Array<[number, number]>;
  specialTokensMask: number[];
  attentionMask: number[];
  /** Which text each token comes from: 0 (the first), 1 (the pair's second), -1 (special and padding tokens). */
  sequenceIds: number[];
}

export function emptyEncoding(): Encoding {
  return { ids: [], tokens: [], typeIds: [], offsets: [], specialTokensMask: [], attentionMask: [], sequenceIds: [] };
}

export function concatEncodings(parts: readonly Encoding[]): Encoding {
  const out = emptyEncoding();
  for (const p of parts) {
    out.ids.push(...p.ids);
    out.tokens.push(...p.tokens);
    out.typeIds.push(...p.typeIds);
    out.offsets.push(...p.offsets);
    out.specialTokensMask.push(...p.specialTokensMask);
    out.attentionMask.push(...p.attentionMask);
    out.sequenceIds.push(...p.sequenceIds);
  }
  return out;
}

export function specialEncoding(ids: readonly number[], tokens: readonly string[], typeId: number): Encoding {
  return {
    ids: [...ids],
    tokens: [...tokens],
    typeIds: ids.map(() => typeId),
    offsets: ids.map(() => [0, 0] as [number, number]),
    specialTokensMask: ids.map(() => 1),
    attentionMask: ids.map(() => 1),
    sequenceIds: ids.map(() => -1),
  };
}

/** A text's own tokens (no special ones) as an encoding of type `typeId`, where only ids and tokens are known. */
export function idsEncoding(ids: readonly number[], tokens: readonly string[], typeId: number): Encoding {
  return {
    ids: [...ids],
    tokens: [...tokens],
    typeIds: ids.map(() => typeId),
    offsets: ids.map(() => [0, 0] as [number, number]),
    specialTokensMask: ids.map(() => 0),
    attentionMask: ids.map(() => 1),
    sequenceIds: ids.map(() => typeId),
  };
}

export function withTypeId(e: Encoding, typeId: number): Encoding {
  return { ...e, typeIds: e.ids.map(() => typeId) };
}

/** Keeps `keep` tokens: the first ones (direction "Right" cuts the end) or the last ones ("Left"). */
export function truncateEncoding(e: Encoding, keep: number, direction: "Right" | "Left"): Encoding {
  if (e.ids.length <= keep) return e;
  const [a, b] = direction === "Right" ? [0, keep] : [e.ids.length - keep, e.ids.length];
  return {
    ids: e.ids.slice(a, b),
    tokens: e.tokens.slice(a, b),
    typeIds: e.typeIds.slice(a, b),
    offsets: e.offsets.slice(a, b),
    specialTokensMask: e.specialTokensMask.slice(a, b),
    attentionMask: e.attentionMask.slice(a, b),
    sequenceIds: e.sequenceIds.slice(a, b),
  };
}

/** How a pair too long for the limit is cut: `tokenizers`' TruncationStrategy and TruncationDirection. */
export interface PairTruncation {
  strategy: "LongestFirst" | "OnlyFirst" | "OnlySecond";
  direction: "Right" | "Left";
}

/**
 * `tokenizers`' truncate_encodings (overflowing tokens are dropped, not kept): one sequence, or a pair,
 * cut to `max` tokens. LongestFirst keeps the shorter part whole when the longer can take the rest, and
 * otherwise splits `max` in two, the odd token going to the part that was longer (to the second on a tie).
 */
export function truncatePair(a: Encoding, b: Encoding | undefined, max: number, t: PairTruncation): [Encoding, Encoding | undefined] {
  if (!b) return [truncateEncoding(a, max, t.direction), undefined];
  const n1 = a.ids.length,
    n2 = b.ids.length;
  if (n1 + n2 <= max) return [a, b];
  if (t.strategy === "LongestFirst") {
    let short = Math.min(n1, n2),
      long = Math.max(n1, n2);
    const swap = n1 > n2;
    long = short > max ? short : Math.max(short, max - short);
    if (short + long > max) {
      short = Math.floor(max / 2);
      long = short + (max % 2);
    }
    const [k1, k2] = swap ? [long, short] : [short, long];
    return [truncateEncoding(a, k1, t.direction), truncateEncoding(b, k2, t.direction)];
  }
  const remove = n1 + n2 - max;
  if (t.strategy === "OnlyFirst") {
    if (remove > n1) throw new Error(`truncation: the first sequence (${n1} tokens) cannot lose ${remove} tokens; use "LongestFirst"`);
    return [truncateEncoding(a, n1 - remove, t.direction), b];
  }
  if (remove > n2) throw new Error(`truncation: the second sequence (${n2} tokens) cannot lose ${remove} tokens; use "LongestFirst"`);
  return [a, truncateEncoding(b, n2 - remove, t.direction)];
}
