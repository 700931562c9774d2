// The pre-tokenizers of a tokenizer.json: each cuts aligned text into the pieces ("words") the model
// then splits on its own, with the same pieces and the same delimiter rules as Hugging Face
// `tokenizers`: BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Digits, Split, Metaspace,
// ByteLevel, CharDelimiterSplit and Sequence.
import { AlignedBuilder, AlignedText } from "./aligned-text.js";
import { BYTE_TO_CHAR, byteCharsOf } from "./byte-chars.js";
import { arrayField, boolField, objectAt, stringField, type JsonObject, type JsonPlace } from "./component-json.js";
import { patternRegExp } from "./patterns.js";

/** Cuts pieces into pieces. */
export type PreTokenizer = (pieces: AlignedText[]) => AlignedText[];

const KNOWN = [
  "BertPreTokenizer",
  "Whitespace",
  "WhitespaceSplit",
  "Punctuation",
  "Digits",
  "Split",
  "Metaspace",
  "ByteLevel",
  "CharDelimiterSplit",
  "Sequence",
];

export type SplitBehavior = "Removed" | "Isolated" | "MergedWithPrevious" | "MergedWithNext" | "Contiguous";
const BEHAVIORS: readonly SplitBehavior[] = ["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"];

/**
 * Cuts `t` at the matches of `pattern` (a global regex), keeping, dropping or merging the matches as
 * `behavior` says, as `tokenizers`' NormalizedString::split does; `invert` swaps matches and the rest.
 */
export function splitBy(t: AlignedText, pattern: RegExp, behavior: SplitBehavior, invert = false): AlignedText[] {
  const s = t.text;
  const parts: Array<[number, number, boolean]> = [];
  let done = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(s); m !== null; m = pattern.exec(s)) {
    if (m[0].length === 0) {
      pattern.lastIndex += 1;
      continue;
    }
    if (done < m.index) parts.push([done, m.index, invert]);
    parts.push([m.index, m.index + m[0].length, !invert]);
    done = m.index + m[0].length;
  }
  if (done < s.length) parts.push([done, s.length, invert]);
  const out: Array<[number, number]> = [];
  switch (behavior) {
    case "Removed":
      for (const [a, b, isMatch] of parts) if (!isMatch) out.push([a, b]);
      break;
    case "Isolated":
      for (const [a, b] of parts) out.push([a, b]);
      break;
    case "MergedWithPrevious": {
      let previousMatch = false;
      for (const [a, b, isMatch] of parts) {
        if (isMatch && !previousMatch && out.length > 0) out[out.length - 1]![1] = b;
        else out.push([a, b]);
        previousMatch = isMatch;
      }
      break;
    }
    case "MergedWithNext": {
      let nextMatch = false;
      for (let i = parts.length - 1; i >= 0; i--) {
        const [a, b, isMatch] = parts[i]!;
        if (isMatch && !nextMatch && out.length > 0) out[out.length - 1]![0] = a;
        else out.push([a, b]);
        nextMatch = isMatch;
      }
      out.reverse();
      break;
    }
    case "Contiguous": {
      let previousMatch = false;
      for (const [a, b, isMatch] of parts) {
        if (isMatch && previousMatch && out.length > 0) out[out.length - 1]![1] = b;
        else out.push([a, b]);
        previousMatch = isMatch;
      }
      break;
    }
  }
  return out.map(([a, b]) => t.slice(a, b));
}

function eachPiece(fn: (t: AlignedText) => AlignedText[]): PreTokenizer {
  return (pieces) => pieces.flatMap(fn);
}

// Rust's char::is_whitespace: the White_Space property.
const WHITESPACE_RUN = /\p{White_Space}+/gu;
// `tokenizers`' is_punctuation: ASCII punctuation (which includes symbols such as $ + < = > ^ ` | ~) or a
// Unicode punctuation category.
const PUNCTUATION = /[!-/:-@[-`{-~]|\p{P}/gu;
// Rust regex's \w (Unicode): alphabetic, marks, decimal digits, connector punctuation, join controls.
const WORD_CHARS = String.raw`\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}`;
const WHITESPACE_WORDS = new RegExp(String.raw`[${WORD_CHARS}]+|[^${WORD_CHARS}\p{White_Space}]+`, "gu");
// GPT-2's pattern, as ByteLevel's use_regex runs it.
const GPT2_PATTERN = new RegExp(
  String.raw`'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\p{White_Space}\p{L}\p{N}]+` +
    String.raw`|\p{White_Space}+(?![^\p{White_Space}])|\p{White_Space}+`,
  "gu",
);

function behaviorField(o: JsonObject, place: JsonPlace, fallback: SplitBehavior): SplitBehavior {
  const v = o.behavior ?? fallback;
  if (!BEHAVIORS.includes(v as SplitBehavior))
    place.in("behavior").fail(`is ${JSON.stringify(v)}, expected one of ${BEHAVIORS.join(", ")}`);
  return v as SplitBehavior;
}

/** Metaspace: ' ' → replacement, the replacement prepended as the scheme says, cut before each replacement. */
export function metaspace(replacement: string, prependScheme: "always" | "first" | "never", split: boolean): PreTokenizer {
  const space = / /gu;
  const cut = new RegExp(replacement.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "gu");
  return eachPiece((t) => {
    let out = t.replace(space, replacement);
    const prepend = prependScheme === "always" || (prependScheme === "first" && t.length > 0 && t.starts[0] === 0);
    if (prepend && !out.text.startsWith(replacement)) out = out.prepend(replacement);
    return split ? splitBy(out, cut, "MergedWithNext") : [out];
  });
}

export function prependSchemeField(o: JsonObject, place: JsonPlace): "always" | "first" | "never" {
  if (o.prepend_scheme === undefined) return o.add_prefix_space === false ? "never" : "always";
  const v = o.prepend_scheme;
  if (v !== "always" && v !== "first" && v !== "never")
    place.in("prepend_scheme").fail(`is ${JSON.stringify(v)}, expected "always", "first" or "never"`);
  return v as "always" | "first" | "never";
}

/** ByteLevel: a space before the text (add_prefix_space), GPT-2's pattern (use_regex), then bytes as characters. */
export function byteLevel(addPrefixSpace: boolean, useRegex: boolean): PreTokenizer {
  return eachPiece((t) => {
    let text = t;
    if (addPrefixSpace && !text.text.startsWith(" ")) text = text.prepend(" ");
    const pieces = useRegex ? splitBy(text, GPT2_PATTERN, "Isolated") : [text];
    return pieces.map(toByteChars);
  });
}

function toByteChars(t: AlignedText): AlignedText {
  const s = t.text;
  // ASCII is one byte a character: the alignment stays as it is.
  let ascii = "";
  let i = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) break;
    ascii += BYTE_TO_CHAR[c]!;
  }
  if (i === s.length) return new AlignedText(ascii, t.starts, t.ends);
  const b = new AlignedBuilder();
  for (let i = 0; i < s.length;) {
    const cp = s.codePointAt(i)!;
    const w = cp > 0xffff ? 2 : 1;
    b.push(byteCharsOf(cp), t.starts[i]!, t.ends[i + w - 1]!);
    i += w;
  }
  return b.build();
}

/** The pre-tokenizer a tokenizer.json's "pre_tokenizer" describes (the whole text as one piece for null). */
export function buildPreTokenizer(json: unknown, place: JsonPlace): PreTokenizer {
  if (json === null || json === undefined) return (pieces) => pieces;
  const o = objectAt(json, place);
  switch (o.type) {
    case "BertPreTokenizer":
      return eachPiece((t) => splitBy(t, WHITESPACE_RUN, "Removed").flatMap((w) => splitBy(w, PUNCTUATION, "Isolated")));
    case "Whitespace":
      return eachPiece((t) => splitBy(t, WHITESPACE_WORDS, "Removed", true));
    case "WhitespaceSplit":
      return eachPiece((t) => splitBy(t, WHITESPACE_RUN, "Removed"));
    case "Punctuation": {
      const behavior = behaviorField(o, place, "Isolated");
      return eachPiece((t) => splitBy(t, PUNCTUATION, behavior));
    }
    case "Digits": {
      const pattern = boolField(o, "individual_digits", place, false) ? /\p{Nd}/gu : /\p{Nd}+/gu;
      return eachPiece((t) => splitBy(t, pattern, "Isolated"));
    }
    case "CharDelimiterSplit": {
      const delimiter = stringField(o, "delimiter", place);
      const pattern = new RegExp(delimiter.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "gu");
      return eachPiece((t) => splitBy(t, pattern, "Removed"));
    }
    case "Split": {
      const pattern = patternRegExp(o.pattern, place.in("pattern"));
      const behavior = behaviorField(o, place, "Isolated");
      const invert = boolField(o, "invert", place, false);
      return eachPiece((t) => splitBy(t, pattern, behavior, invert));
    }
    case "Metaspace":
      return metaspace(stringField(o, "replacement", place, "\u2581"), prependSchemeField(o, place), boolField(o, "split", place, true));
    case "ByteLevel":
      return byteLevel(boolField(o, "add_prefix_space", place, true), boolField(o, "use_regex", place, true));
    case "Sequence": {
      const steps = arrayField(o, "pretokenizers", place).map((p, i) => buildPreTokenizer(p, place.in("pretokenizers").in(i)));
      return (pieces) => steps.reduce((acc, step) => step(acc), pieces);
    }
    default:
      return place.unsupported(o.type, KNOWN);
  }
}
