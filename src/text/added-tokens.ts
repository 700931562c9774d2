// Added tokens (Kiln's special tokens) are cut out of the raw text before normalization, the way
// Hugging Face `tokenizers` does it: leftmost-longest matches on the original text, each becoming one id;
// `lstrip` swallows the whitespace to its left (so "is to [MASK]." keeps "is to" and "." as text and
// [MASK] as one id) and `rstrip` the whitespace to its right. The pieces between matches go on to the
// normalizer, the pre-tokenizer and the model.

/** A token of tokenizer.json's added_tokens: its id, text, and how it matches. */
export interface AddedToken {
  id: number;
  content: string;
  /** Swallow the whitespace on its left. */
  lstrip: boolean;
  /** Swallow the whitespace on its right. */
  rstrip: boolean;
  /** Skipped by decode({ skipSpecialTokens: true }). */
  special: boolean;
}

// Rust's regex `\s` (which `tokenizers` uses for stripping) is Unicode White_Space; JavaScript's `\s`
// also matches U+FEFF, so name the property explicitly.
const TRAILING_WHITESPACE = /\p{White_Space}*$/u;
const LEADING_WHITESPACE = /^\p{White_Space}*/u;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export class AddedTokenSplitter {
  private readonly pattern: RegExp | undefined;
  private readonly byContent: Map<string, AddedToken>;

  constructor(tokens: readonly AddedToken[]) {
    this.byContent = new Map(tokens.map((t) => [t.content, t]));
    // Longest first: a regex alternation takes the first alternative that matches at the leftmost
    // position, which makes this a leftmost-longest search.
    const contents = [...this.byContent.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
    this.pattern = contents.length === 0 ? undefined : new RegExp(contents.map(escapeRegExp).join("|"), "gu");
  }

  /**
   * Walks `text` in order: `onText` for each stretch of plain text (never empty) and where it starts,
   * `onToken` for each added token found and the span it takes, stripped whitespace included (as
   * `tokenizers` reports it: a byte-level post-processor then trims the offsets).
   */
  split(text: string, onText: (text: string, start: number) => void, onToken: (id: number, start: number, end: number) => void): void {
    const pattern = this.pattern;
    if (pattern === undefined) {
      if (text.length > 0) onText(text, 0);
      return;
    }
    let done = 0;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const token = this.byContent.get(m[0])!;
      let start = m.index;
      let stop = start + m[0].length;
      if (token.lstrip) {
        const before = text.slice(done, start);
        start = done + TRAILING_WHITESPACE.exec(before)!.index;
      }
      if (token.rstrip) {
        stop += LEADING_WHITESPACE.exec(text.slice(stop))![0].length;
      }
      if (done < start) onText(text.slice(done, start), done);
      onToken(token.id, start, stop);
      done = stop;
      // Matching goes on from the end of the match, not past the stripped whitespace, as in `tokenizers`.
    }
    if (done < text.length) onText(text.slice(done), done);
  }
}
