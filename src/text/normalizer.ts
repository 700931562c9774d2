// Kiln's text normalizer, the same steps as the "normalizer" its tokenizer.json declares (a Sequence of
// NFKC, then Replace "``" → '"', then Replace "''" → '"', as in the reference pipeline): encoding and
// training both see text exactly as Hugging Face `tokenizers` does.

// oxlint-disable-next-line no-control-regex -- the whole ASCII range, control characters included
const NON_ASCII = /[^\x00-\x7f]/;
// A lone UTF-16 surrogate cannot cross into Rust (the binding turns it into U+FFFD); doing the same here
// keeps the two sides on identical text.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function normalizeText(text: string): string {
  let s = text;
  // NFKC leaves ASCII unchanged, and almost every line of English text is ASCII: skip ICU for those.
  if (NON_ASCII.test(s)) s = s.replace(LONE_SURROGATE, "\ufffd").normalize("NFKC");
  if (s.includes("``")) s = s.replaceAll("``", '"');
  if (s.includes("''")) s = s.replaceAll("''", '"');
  return s;
}
