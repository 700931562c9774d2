// The decoders of a tokenizer.json: token strings back to text, exactly as `tokenizers`' decode_chain
// runs them: WordPiece, ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, BPEDecoder, Sequence.
import { CHAR_TO_BYTE } from "./byte-chars.js";
import { arrayField, boolField, intField, objectAt, stringField, type JsonPlace } from "./component-json.js";
import { patternRegExp } from "./patterns.js";
import { prependSchemeField } from "./pre-tokenizers.js";

/** Token strings in, token strings out; the text is their concatenation. */
export type Decoder = (tokens: string[]) => string[];

// ignoreBOM: a byte order mark the text had is text, not a marker to drop.
const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const BYTE_TOKEN = /^<0x([0-9A-F]{2})>$/;

/** WordPiece's cleanup: the spaces English tokenization put before punctuation and contractions. */
function cleanup(s: string): string {
  return s
    .replaceAll(" .", ".")
    .replaceAll(" ?", "?")
    .replaceAll(" !", "!")
    .replaceAll(" ,", ",")
    .replaceAll(" ' ", "'")
    .replaceAll(" n't", "n't")
    .replaceAll(" 'm", "'m")
    .replaceAll(" do not", " don't")
    .replaceAll(" 's", "'s")
    .replaceAll(" 've", "'ve")
    .replaceAll(" 're", "'re");
}

function byteLevelDecode(tokens: string[]): string[] {
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (const t of tokens) {
    const own: number[] = [];
    let ok = true;
    for (const c of t) {
      const b = CHAR_TO_BYTE.get(c);
      if (b === undefined) {
        ok = false;
        break;
      }
      own.push(b);
    }
    // A token outside the byte alphabet (an added token) stands for its own UTF-8 bytes.
    bytes.push(...(ok ? own : enc.encode(t)));
  }
  return [utf8.decode(Uint8Array.from(bytes))];
}

function byteFallbackDecode(tokens: string[]): string[] {
  const out: string[] = [];
  let pending: number[] = [];
  const flush = (): void => {
    if (pending.length === 0) return;
    try {
      out.push(strictUtf8.decode(Uint8Array.from(pending)));
    } catch {
      for (let i = 0; i < pending.length; i++) out.push("\ufffd");
    }
    pending = [];
  };
  for (const t of tokens) {
    const m = BYTE_TOKEN.exec(t);
    if (m) pending.push(parseInt(m[1]!, 16));
    else {
      flush();
      out.push(t);
    }
  }
  flush();
  return out;
}

export function buildDecoder(json: unknown, place: JsonPlace): Decoder | undefined {
  if (json === null || json === undefined) return undefined;
  const o = objectAt(json, place);
  switch (o.type) {
    case "WordPiece": {
      const prefix = stringField(o, "prefix", place, "##");
      const clean = boolField(o, "cleanup", place, true);
      return (tokens) =>
        tokens.map((t, i) => {
          let s = t;
          if (i !== 0) s = s.startsWith(prefix) ? s.replace(prefix, "") : ` ${s}`;
          return clean ? cleanup(s) : s;
        });
    }
    case "ByteLevel":
      return byteLevelDecode;
    case "Metaspace": {
      const replacement = stringField(o, "replacement", place, "\u2581");
      const scheme = prependSchemeField(o, place);
      return (tokens) => tokens.map((t, i) => t.replaceAll(replacement, i === 0 && scheme !== "never" ? "" : " "));
    }
    case "ByteFallback":
      return byteFallbackDecode;
    case "Fuse":
      return (tokens) => [tokens.join("")];
    case "Strip": {
      const content = stringField(o, "content", place);
      const start = intField(o, "start", place, 0);
      const stop = intField(o, "stop", place, 0);
      return (tokens) =>
        tokens.map((t) => {
          const chars = [...t];
          let a = 0;
          while (a < start && a < chars.length && chars[a] === content) a++;
          let b = chars.length;
          while (chars.length - b < stop && b > a && chars[b - 1] === content) b--;
          return chars.slice(a, b).join("");
        });
    }
    case "Replace": {
      const pattern = patternRegExp(o.pattern, place.in("pattern"));
      const content = stringField(o, "content", place);
      return (tokens) => tokens.map((t) => t.replace(pattern, () => content));
    }
    case "BPEDecoder": {
      const suffix = stringField(o, "suffix", place, "</w>");
      return (tokens) => tokens.map((t, i) => t.replaceAll(suffix, i === tokens.length - 1 ? "" : " "));
    }
    case "Sequence": {
      const steps = arrayField(o, "decoders", place).map((d, i) => buildDecoder(d, place.in("decoders").in(i)));
      return (tokens) => steps.reduce((acc, step) => (step ? step(acc) : acc), tokens);
    }
    default:
      return place.unsupported(o.type, [
        "WordPiece",
        "ByteLevel",
        "Metaspace",
        "ByteFallback",
        "Fuse",
        "Strip",
        "Replace",
        "BPEDecoder",
        "Sequence",
      ]);
  }
}
