// What tests comparing Kiln's tokenizers with Hugging Face `tokenizers` need on the JavaScript side of
// the comparison: `tokenizers` counts offsets in characters where JavaScript counts UTF-16 units, and a
// lone surrogate cannot cross into its Rust strings.

/** A surrogate without its partner: texts holding one stay out of the comparison. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** UTF-16 offsets → character offsets, as `tokenizers` counts. */
export function charOffsets(text: string, offsets: Array<[number, number]>): Array<[number, number]> {
  const at = new Int32Array(text.length + 1);
  let c = 0;
  for (let i = 0; i <= text.length; i++) {
    at[i] = c;
    const u = text.charCodeAt(i);
    if (!(u >= 0xd800 && u <= 0xdbff)) c++;
  }
  return offsets.map(([s, e]) => [at[s]!, at[e]!]);
}
