// Text that remembers where each of its UTF-16 units came from in the original input, as Hugging Face
// `tokenizers`' NormalizedString does: every normalizer and pre-tokenizer step maps one such text to
// another, and a token's offsets are read back from the units it covers. Offsets here are UTF-16 indices
// into the original string (what `text.slice(start, end)` takes).

export class AlignedText {
  /** starts[i], ends[i]: the original range that unit i of `text` came from. */
  constructor(
    readonly text: string,
    readonly starts: Int32Array,
    readonly ends: Int32Array,
  ) {}

  /** `text` at original offset `base`, aligned unit for unit. */
  static from(text: string, base = 0): AlignedText {
    const n = text.length;
    const starts = new Int32Array(n),
      ends = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      // A surrogate pair's two units both stand for the whole character.
      if (isHigh(c) && i + 1 < n && isLow(text.charCodeAt(i + 1))) {
        starts[i] = starts[i + 1] = base + i;
        ends[i] = ends[i + 1] = base + i + 2;
        i++;
      } else {
        starts[i] = base + i;
        ends[i] = base + i + 1;
      }
    }
    return new AlignedText(text, starts, ends);
  }

  get length(): number {
    return this.text.length;
  }

  slice(start: number, end: number): AlignedText {
    return new AlignedText(this.text.slice(start, end), this.starts.subarray(start, end), this.ends.subarray(start, end));
  }

  /** The original range of units [start, end) (an empty range sits where `start` is). */
  original(start: number, end: number): [number, number] {
    if (end <= start) {
      const at = start < this.length ? this.starts[start]! : this.length > 0 ? this.ends[this.length - 1]! : 0;
      return [at, at];
    }
    return [this.starts[start]!, this.ends[end - 1]!];
  }

  /**
   * Maps each character (code point) to a replacement string, or null to drop it; every unit of a
   * replacement comes from the character it replaces.
   */
  mapChars(fn: (ch: string) => string | null): AlignedText {
    const t = this.text;
    // Most characters map to one of the same length: then the alignment is the input's, unit for unit.
    let same = "";
    let i = 0;
    for (; i < t.length;) {
      const w = t.codePointAt(i)! > 0xffff ? 2 : 1;
      const out = fn(w === 2 ? t.slice(i, i + 2) : t[i]!);
      if (out === null || out.length !== w) break;
      same += out;
      i += w;
    }
    if (i === t.length) return new AlignedText(same, this.starts, this.ends);
    const b = new AlignedBuilder();
    for (let i = 0; i < t.length;) {
      const cp = t.codePointAt(i)!;
      const w = cp > 0xffff ? 2 : 1;
      const ch = w === 2 ? t.slice(i, i + 2) : t[i]!;
      const out = fn(ch);
      if (out !== null) b.push(out, this.starts[i]!, this.ends[i + w - 1]!);
      i += w;
    }
    return b.build();
  }

  /**
   * Replaces each match of `pattern` (a global regex) with `content`: as in `tokenizers`, the
   * replacement's units take the original range of the match's last character.
   */
  replace(pattern: RegExp, content: string): AlignedText {
    const b = new AlignedBuilder();
    const t = this.text;
    let done = 0;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(t); m !== null; m = pattern.exec(t)) {
      if (m[0].length === 0) {
        pattern.lastIndex++;
        continue;
      }
      b.copy(this, done, m.index);
      const last = m.index + m[0].length - 1;
      b.push(content, this.starts[last]!, this.ends[last]!);
      done = m.index + m[0].length;
    }
    b.copy(this, done, t.length);
    return b.build();
  }

  /**
   * Unicode normalization, one cluster (a character and the marks after it) at a time. Within a
   * cluster that changes, output character j comes from input character min(j, last), as in
   * `tokenizers`: a composed character keeps its base's place (the marks folded into it are dropped),
   * and the parts of a decomposed one all come from it.
   */
  normalize(form: "NFC" | "NFD" | "NFKC" | "NFKD"): AlignedText {
    const t = this.text;
    // oxlint-disable-next-line no-control-regex -- ASCII is its own normal form in every form
    if (!/[^\x00-\x7f]/.test(t)) return this;
    const whole = t.normalize(form);
    const b = new AlignedBuilder();
    for (const m of t.matchAll(CLUSTER)) {
      const end = m.index + m[0].length;
      const normal = m[0].normalize(form);
      if (normal === m[0]) {
        b.copy(this, m.index, end);
        continue;
      }
      const inputStarts: number[] = [];
      for (let i = m.index; i < end; i += t.codePointAt(i)! > 0xffff ? 2 : 1) inputStarts.push(i);
      let j = 0;
      for (const ch of normal) {
        const from = inputStarts[Math.min(j++, inputStarts.length - 1)]!;
        b.push(ch, this.starts[from]!, this.ends[from + (t.codePointAt(from)! > 0xffff ? 1 : 0)]!);
      }
    }
    const out = b.build();
    if (out.text === whole) return out;
    // Composition across clusters (Hangul jamo, some scripts): align the whole text as one range.
    const [s, e] = this.original(0, t.length);
    const all = new AlignedBuilder();
    all.push(whole, s, e);
    return all.build();
  }

  /** `prefix` before the text, its units aligned with the first character. */
  prepend(prefix: string): AlignedText {
    if (this.length === 0) return this;
    const b = new AlignedBuilder();
    b.push(prefix, this.starts[0]!, this.ends[0]!);
    b.copy(this, 0, this.length);
    return b.build();
  }
}

const CLUSTER = /\P{M}\p{M}*|\p{M}+/gsu;

export class AlignedBuilder {
  private text = "";
  private starts: number[] = [];
  private ends: number[] = [];

  push(s: string, start: number, end: number): void {
    this.text += s;
    for (let i = 0; i < s.length; i++) {
      this.starts.push(start);
      this.ends.push(end);
    }
  }

  copy(from: AlignedText, start: number, end: number): void {
    if (end <= start) return;
    this.text += from.text.slice(start, end);
    for (let i = start; i < end; i++) {
      this.starts.push(from.starts[i]!);
      this.ends.push(from.ends[i]!);
    }
  }

  build(): AlignedText {
    return new AlignedText(this.text, Int32Array.from(this.starts), Int32Array.from(this.ends));
  }
}

export function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

export function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
