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
