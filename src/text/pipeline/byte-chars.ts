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

const encoder = new TextEncoder();

/** The UTF-8 bytes of a character, spelled as byte characters. */
export function byteCharsOf(ch: string): string {
  const bytes = encoder.encode(ch);
  let s = "";
  for (const b of bytes) s += BYTE_TO_CHAR[b];
  return s;
}
