// The patterns of Replace and Split: {"String": s} matches s literally, {"Regex": r} is an Oniguruma
// regex (what `tokenizers` compiles), translated to a JavaScript one with the `u` flag. The translation
// covers what tokenizer.json files use: scoped case-insensitive groups `(?i:…)` (Llama 3's
// contractions), which JavaScript before ES2025 lacks, become character classes per letter; `\s` and
// `\S` become Unicode White_Space, which is Oniguruma's (JavaScript's \s also takes U+FEFF).
import { isRecord, type JsonPlace } from "./component-json.js";

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Letters of a scoped case-insensitive group, each as [xX]. */
function caseless(body: string): string {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\") {
      out += c + (body[i + 1] ?? "");
      i++;
    } else if (c.toLowerCase() !== c.toUpperCase()) out += `[${c.toLowerCase()}${c.toUpperCase()}]`;
    else out += c;
  }
  return out;
}

/** Oniguruma syntax → JavaScript (u flag). */
export function translateRegex(source: string, place: JsonPlace): string {
  let s = source.replace(/\(\?i:((?:[^()\\[]|\\.)*)\)/g, (_, body: string) => `(?:${caseless(body)})`);
  // Outside a class \s → [\p{White_Space}], \S → [^\p{White_Space}]; inside one, the bare property.
  let out = "";
  let inClass = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\") {
      const n = s[i + 1];
      if (n === "s") out += inClass ? "\\p{White_Space}" : "[\\p{White_Space}]";
      else if (n === "S") out += inClass ? "\\P{White_Space}" : "[^\\p{White_Space}]";
      else out += c + (n ?? "");
      i++;
      continue;
    }
    if (c === "[" && !inClass) inClass = true;
    else if (c === "]" && inClass) inClass = false;
    out += c;
  }
  s = out;
  try {
    new RegExp(s, "gu");
  } catch (e) {
    place.fail(`holds the regex ${JSON.stringify(source)}, which Kiln cannot translate to JavaScript (${(e as Error).message})`);
  }
  return s;
}

/** A global regex for a {"String": …} or {"Regex": …} pattern. */
export function patternRegExp(json: unknown, place: JsonPlace): RegExp {
  if (isRecord(json) && typeof json.String === "string") return new RegExp(escapeRegExp(json.String), "gu");
  if (isRecord(json) && typeof json.Regex === "string") return new RegExp(translateRegex(json.Regex, place), "gu");
  return place.fail(`is ${JSON.stringify(json)}, expected {"String": text} or {"Regex": pattern}`);
}
