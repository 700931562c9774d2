// The Metaspace pre-tokenizer (replacement "▁", prepend_scheme "always", split true), as Hugging Face
// `tokenizers` runs it: every ' ' becomes '▁', a '▁' is prepended unless the text already starts with
// one, and the text is cut before every '▁'. So each word is '▁' followed by a body that holds neither
// ' ' nor '▁'. Callers get the body's bounds and supply the '▁' themselves, which lets the encoder look
// words up in its cache without building a new string per word.

export const METASPACE = "\u2581";
const SPACE = 0x20;
const META = 0x2581;

/** Calls `onWord(start, end)` for the body text[start, end) of each word of a non-empty text, in order. */
export function forEachWordBody(text: string, onWord: (start: number, end: number) => void): void {
  const n = text.length;
  if (n === 0) return;
  const first = text.charCodeAt(0);
  // A text that starts with a delimiter gets no prepended '▁': its first word is the delimiter's.
  let start = first === SPACE || first === META ? 1 : 0;
  for (let i = start; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === SPACE || c === META) {
      onWord(start, i);
      start = i + 1;
    }
  }
  onWord(start, n);
}
