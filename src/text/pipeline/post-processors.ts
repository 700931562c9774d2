// The post-processors of a tokenizer.json: they add the special tokens around one sequence or a pair
// and set the type ids (TemplateProcessing, BertProcessing, RobertaProcessing), and byte-level ones
// move offsets off the spaces a token starts or ends with (trim_offsets), as `tokenizers` does.
import { BYTE_TO_CHAR } from "./byte-chars.js";
import { arrayField, boolField, isRecord, objectAt, type JsonObject, type JsonPlace } from "./component-json.js";
import { concatEncodings, specialEncoding, withTypeId, type Encoding } from "./encoding.js";

export interface PostProcessor {
  /** How many special tokens it adds to one sequence, or to a pair. */
  added(pair: boolean): number;
  process(a: Encoding, b: Encoding | undefined, addSpecialTokens: boolean): Encoding;
  /** For a step that works on each sequence alone (ByteLevel's offset trimming). */
  perSequence?: (e: Encoding) => Encoding;
}

type Piece = { special: string; typeId: number } | { sequence: "A" | "B"; typeId: number };

const SPACE_CHAR = BYTE_TO_CHAR[0x20]!;
const WHITESPACE = /^\p{White_Space}$/u;

/** `tokenizers`' process_offsets: leading and trailing spaces of each token leave its offsets. */
function trimOffsets(e: Encoding, addPrefixSpace: boolean): Encoding {
  const offsets = e.offsets.map(([s0, e0], i): [number, number] => {
    const chars = [...e.tokens[i]!];
    const isSpace = (c: string): boolean => c === SPACE_CHAR || WHITESPACE.test(c);
    let leading = 0;
    while (leading < chars.length && isSpace(chars[leading]!)) leading++;
    let trailing = 0;
    while (trailing < chars.length && isSpace(chars[chars.length - 1 - trailing]!)) trailing++;
    let s = s0,
      t = e0;
    if (leading > 0) {
      const isFirst = i === 0 || s0 === 0;
      if (!(isFirst && addPrefixSpace && leading === 1)) s = Math.min(s0 + leading, e0);
    }
    if (trailing > 0 && t >= trailing) t = Math.max(t - trailing, s);
    return [s, t];
  });
  return { ...e, offsets };
}

function defaultProcess(a: Encoding, b: Encoding | undefined): Encoding {
  return b ? concatEncodings([a, b]) : a;
}

function parsePieces(v: unknown, place: JsonPlace): Piece[] {
  if (!Array.isArray(v)) return place.fail(`is ${JSON.stringify(v)?.slice(0, 80)}, expected a list of pieces`);
  return v.map((p, i): Piece => {
    const where = place.in(i);
    if (isRecord(p) && isRecord(p.SpecialToken) && typeof p.SpecialToken.id === "string")
      return { special: p.SpecialToken.id, typeId: Number(p.SpecialToken.type_id ?? 0) };
    if (isRecord(p) && isRecord(p.Sequence) && (p.Sequence.id === "A" || p.Sequence.id === "B"))
      return { sequence: p.Sequence.id, typeId: Number(p.Sequence.type_id ?? 0) };
    return where.fail(`is ${JSON.stringify(p)}, expected {"SpecialToken": {id, type_id}} or {"Sequence": {id: "A"|"B", type_id}}`);
  });
}

function template(o: JsonObject, place: JsonPlace): PostProcessor {
  const single = parsePieces(o.single, place.in("single"));
  const pair = parsePieces(o.pair, place.in("pair"));
  const specials = new Map<string, { ids: number[]; tokens: string[] }>();
  for (const [key, value] of Object.entries(objectAt(o.special_tokens ?? {}, place.in("special_tokens")))) {
    const v = objectAt(value, place.in("special_tokens").in(key));
    if (!Array.isArray(v.ids) || !Array.isArray(v.tokens)) place.in("special_tokens").in(key).fail(`needs "ids" and "tokens" lists`);
    specials.set(key, { ids: v.ids as number[], tokens: v.tokens as string[] });
  }
  for (const [name, pieces] of [
    ["single", single],
    ["pair", pair],
  ] as const)
    for (const p of pieces)
      if ("special" in p && !specials.has(p.special))
        place.in(name).fail(`names the special token ${JSON.stringify(p.special)}, which "special_tokens" lacks`);
  const count = (pieces: Piece[]): number => pieces.reduce((n, p) => n + ("special" in p ? specials.get(p.special)!.ids.length : 0), 0);
  return {
    added: (isPair) => count(isPair ? pair : single),
    process(a, b, addSpecialTokens) {
      const parts: Encoding[] = [];
      for (const p of b ? pair : single) {
        if ("sequence" in p) {
          const seq = p.sequence === "A" ? a : b;
          if (seq) parts.push(withTypeId(seq, p.typeId));
        } else if (addSpecialTokens) {
          const s = specials.get(p.special)!;
          parts.push(specialEncoding(s.ids, s.tokens, p.typeId));
        }
      }
      return concatEncodings(parts);
    },
  };
}

function tokenPair(v: unknown, place: JsonPlace): { token: string; id: number } {
  if (!Array.isArray(v) || typeof v[0] !== "string" || typeof v[1] !== "number")
    return place.fail(`is ${JSON.stringify(v)}, expected [token, id]`);
  return { token: v[0], id: v[1] };
}

/** BERT: `[CLS] A [SEP]`, `[CLS] A [SEP] B [SEP]` (B's part type 1); RoBERTa: `<s> A </s>`, `<s> A </s> </s> B </s>` (all type 0). */
function clsSep(o: JsonObject, place: JsonPlace, roberta: boolean): PostProcessor {
  const cls = tokenPair(o.cls, place.in("cls"));
  const sep = tokenPair(o.sep, place.in("sep"));
  const trim = roberta && boolField(o, "trim_offsets", place, true);
  const addPrefixSpace = roberta && boolField(o, "add_prefix_space", place, true);
  const s = (t: { token: string; id: number }, typeId: number): Encoding => specialEncoding([t.id], [t.token], typeId);
  return {
    added: (isPair) => (isPair ? (roberta ? 4 : 3) : 2),
    process(a0, b0, addSpecialTokens) {
      const a = trim ? trimOffsets(a0, addPrefixSpace) : a0;
      const b = b0 && trim ? trimOffsets(b0, addPrefixSpace) : b0;
      // RoBERTa has one token type: a pair without special tokens is all type 0 too.
      if (!addSpecialTokens) return defaultProcess(a, b && roberta ? withTypeId(b, 0) : b);
      const first = concatEncodings([s(cls, 0), withTypeId(a, 0), s(sep, 0)]);
      if (!b) return first;
      const bType = roberta ? 0 : 1;
      return concatEncodings([first, ...(roberta ? [s(sep, bType)] : []), withTypeId(b, bType), s(sep, bType)]);
    },
  };
}

export function buildPostProcessor(json: unknown, place: JsonPlace): PostProcessor | undefined {
  if (json === null || json === undefined) return undefined;
  const o = objectAt(json, place);
  switch (o.type) {
    case "TemplateProcessing":
      return template(o, place);
    case "BertProcessing":
      return clsSep(o, place, false);
    case "RobertaProcessing":
      return clsSep(o, place, true);
    case "ByteLevel": {
      const trim = boolField(o, "trim_offsets", place, true);
      const addPrefixSpace = boolField(o, "add_prefix_space", place, true);
      const each = (e: Encoding): Encoding => (trim ? trimOffsets(e, addPrefixSpace) : e);
      return { added: () => 0, perSequence: each, process: (a, b) => defaultProcess(each(a), b && each(b)) };
    }
    case "Sequence": {
      const steps = arrayField(o, "processors", place).map((p, i) => buildPostProcessor(p, place.in("processors").in(i)));
      return {
        added: (isPair) => steps.reduce((n, s) => n + (s?.added(isPair) ?? 0), 0),
        process(a, b, addSpecialTokens) {
          // Per-sequence steps keep the pair apart; the first joining step lays it out.
          let first = a,
            second = b,
            joined = false;
          for (const s of steps) {
            if (!s) continue;
            if (s.perSequence) {
              first = s.perSequence(first);
              second = second && s.perSequence(second);
            } else {
              first = s.process(first, joined ? undefined : second, addSpecialTokens);
              joined = true;
            }
          }
          return joined ? first : defaultProcess(first, second);
        },
      };
    }
    default:
      return place.unsupported(o.type, ["TemplateProcessing", "BertProcessing", "RobertaProcessing", "ByteLevel", "Sequence"]);
  }
}
