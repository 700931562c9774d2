// The text of new tokens as they come, for streaming to a terminal. Decoding a continuation on its own
// loses what depends on the tokens before it (a Metaspace tokenizer drops the space of the first
// word), so the continuation is decoded after its prompt and the prompt's own text is cut off the
// front. Text that ends in U+FFFD (bytes of a character still incomplete, with byte-level tokenizers)
// is held back until the character is whole, as transformers' TextStreamer does.

/** What streaming needs from a tokenizer. */
export interface StreamTokenizer {
  decode(ids: readonly number[], opts?: { skipSpecialTokens?: boolean }): string;
}

export class TextStream {
  private readonly ids: number[];
  private readonly promptLength: number;
  private readonly promptText: string;
  private printed = 0;

  constructor(
    private readonly tokenizer: StreamTokenizer,
    prompt: readonly number[],
  ) {
    this.ids = [...prompt];
    this.promptLength = prompt.length;
    this.promptText = this.decode();
  }

  /** Adds a token; returns the text that became final with it ("" when none did). */
  push(token: number): string {
    this.ids.push(token);
    const text = this.text;
    if (text.endsWith("\uFFFD")) return "";
    const fresh = text.slice(this.printed);
    this.printed = text.length;
    return fresh;
  }

  /** The whole continuation so far (special tokens left out). */
  get text(): string {
    const all = this.decode();
    if (all.startsWith(this.promptText)) return all.slice(this.promptText.length);
    // A tokenizer whose decoding of the prompt changes with what follows: the new tokens on their own.
    return this.tokenizer.decode(this.ids.slice(this.promptLength), { skipSpecialTokens: true });
  }

  /** Whatever was held back (at the end of generation). */
  flush(): string {
    const text = this.text;
    const rest = text.slice(this.printed);
    this.printed = text.length;
    return rest;
  }

  private decode(): string {
    return this.tokenizer.decode(this.ids, { skipSpecialTokens: true });
  }
}
