// GPT-2's map between bytes and printable characters (bytes_to_unicode): the printable Latin-1 bytes
// stand for themselves, the other 68 take the characters from U+0100 on, in order. Byte-level BPE
// vocabularies spell every token in these characters ("Ġ" is the space byte).

export const BYTE_TO_CHAR: readonly string[] = (() => {
  const chars: string[] = new Array(256);
  let next = 256;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    chars[b] = String.fromCharCode(printable ? b : next++);
  }
  return chars;
})();

export const CHAR_TO_BYTE: ReadonlyMap<string, number> = new Map(BYTE_TO_CHAR.map((c, b) => [c, b]));

/** The UTF-8 bytes of the character at code point `cp`, spelled as byte characters. */
export function byteCharsOf(cp: number): string {
  const c = BYTE_TO_CHAR;
  if (cp < 0x80) return c[cp]!;
  if (cp < 0x800) return c[0xc0 | (cp >> 6)]! + c[0x80 | (cp & 63)]!;
  // A lone surrogate is written as U+FFFD, as a Rust string holds it.
  if (cp >= 0xd800 && cp <= 0xdfff) return byteCharsOf(0xfffd);
  if (cp < 0x10000) return c[0xe0 | (cp >> 12)]! + c[0x80 | ((cp >> 6) & 63)]! + c[0x80 | (cp & 63)]!;
  return c[0xf0 | (cp >> 18)]! + c[0x80 | ((cp >> 12) & 63)]! + c[0x80 | ((cp >> 6) & 63)]! + c[0x80 | (cp & 63)]!;
}
