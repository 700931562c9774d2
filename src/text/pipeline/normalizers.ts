// The normalizers of a tokenizer.json, each a map from aligned text to aligned text, exactly as
// Hugging Face `tokenizers` applies them: BertNormalizer, NFC/NFD/NFKC/NFKD, Lowercase, StripAccents,
// Replace, Prepend, Strip, Precompiled-free Sequence.
import { AlignedText } from "./aligned-text.js";
import { boolField, isRecord, JsonPlace, objectAt, stringField, arrayField, type JsonObject } from "./component-json.js";
import { patternRegExp } from "./patterns.js";

export type Normalizer = (text: AlignedText) => AlignedText;

const KNOWN = ["BertNormalizer", "NFC", "NFD", "NFKC", "NFKD", "Lowercase", "StripAccents", "Replace", "Prepend", "Strip", "Sequence"];

// Rust's char::is_whitespace is the White_Space property; `tokenizers` adds no others.
const WHITESPACE = /^\p{White_Space}$/u;
// BertNormalizer's clean_text drops control characters (Cc, Cf, Co, Cs, Cn... as `is_control` does: the
// C categories) except \t \n \r, which count as whitespace.
const CONTROL = /^\p{C}$/u;
const MARK_NONSPACING = /\p{Mn}/gu;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The CJK ideograph blocks BERT surrounds with spaces (`tokenizers`' is_chinese_char). */
function isChineseChar(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b920 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

function bertNormalizer(o: JsonObject, place: JsonPlace): Normalizer {
  const cleanText = boolField(o, "clean_text", place, true);
  const chinese = boolField(o, "handle_chinese_chars", place, true);
  const lowercase = boolField(o, "lowercase", place, true);
  // strip_accents null follows lowercase, as in BERT.
  const stripAccents = o.strip_accents === null || o.strip_accents === undefined ? lowercase : boolField(o, "strip_accents", place, false);
  return (t) => {
    // Printable ASCII has nothing to clean, no ideographs and no accents: only the case can change.
    if (PRINTABLE_ASCII.test(t.text)) return lowercase ? new AlignedText(t.text.toLowerCase(), t.starts, t.ends) : t;
    let out = t;
    if (cleanText)
      out = out.mapChars((ch) => {
        const cp = ch.codePointAt(0)!;
        if (cp === 0 || cp === 0xfffd) return "";
        if (ch === "\t" || ch === "\n" || ch === "\r") return " ";
        if (CONTROL.test(ch)) return "";
        return WHITESPACE.test(ch) ? " " : ch;
      });
    if (chinese) out = out.mapChars((ch) => (isChineseChar(ch.codePointAt(0)!) ? ` ${ch} ` : ch));
    if (stripAccents) out = stripAccentsOf(out);
    if (lowercase) out = out.mapChars(lowerChar);
    return out;
  };
}

function stripAccentsOf(t: AlignedText): AlignedText {
  return t.normalize("NFD").mapChars((ch) => (ch.replace(MARK_NONSPACING, "") === "" ? "" : ch));
}

// Rust lowercases char by char (no final-sigma rule); JavaScript's toLowerCase of one character does too.
function lowerChar(ch: string): string {
  return ch.toLowerCase();
}

/** The normalizer a tokenizer.json's "normalizer" describes (identity for null). */
export function buildNormalizer(json: unknown, place: JsonPlace): Normalizer {
  if (json === null || json === undefined) return (t) => t;
  const o = objectAt(json, place);
  switch (o.type) {
    case "BertNormalizer":
      return bertNormalizer(o, place);
    case "NFC":
    case "NFD":
    case "NFKC":
    case "NFKD": {
      const form = o.type;
      return (t) => t.normalize(form);
    }
    case "Lowercase":
      return (t) => t.mapChars(lowerChar);
    case "StripAccents":
      // `tokenizers`' StripAccents removes nonspacing marks from the text as it stands (it expects NFD before).
      return (t) => t.mapChars((ch) => (ch.replace(MARK_NONSPACING, "") === "" ? "" : ch));
    case "Replace": {
      const pattern = patternRegExp(o.pattern, place.in("pattern"));
      const content = stringField(o, "content", place);
      return (t) => t.replace(pattern, content);
    }
    case "Prepend": {
      const prepend = stringField(o, "prepend", place);
      return (t) => t.prepend(prepend);
    }
    case "Strip": {
      const left = boolField(o, "strip_left", place, true);
      const right = boolField(o, "strip_right", place, true);
      return (t) => {
        const s = t.text;
        let a = 0,
          b = s.length;
        if (left) while (a < b && WHITESPACE.test(s[a]!)) a++;
        if (right) while (b > a && WHITESPACE.test(s[b - 1]!)) b--;
        return t.slice(a, b);
      };
    }
    case "Sequence": {
      const steps = arrayField(o, "normalizers", place).map((n, i) => buildNormalizer(n, place.in("normalizers").in(i)));
      return (t) => steps.reduce((acc, step) => step(acc), t);
    }
    default:
      if (isRecord(o) && o.type === "Precompiled")
        return place.fail(`is a Precompiled (SentencePiece charsmap) normalizer, which Kiln does not run`);
      return place.unsupported(o.type, KNOWN);
  }
}
