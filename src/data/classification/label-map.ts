// Labels → class ids. String labels get ids in sorted order (as `datasets`' class_encode_column gives
// them), so the same label set always maps the same way; integer labels are their own ids. A label
// column holds one kind: in JSON Lines and Parquet a number among strings is an error; in CSV and TSV,
// where every field is text, the column is integer when every label is written as one.
import { ClassificationInputError } from "./input-error.js";

export type LabelKind = "string" | "integer";

/** The label map prepare.json records (id2label and label2id as in a transformers config.json). */
export interface LabelMap {
  kind: LabelKind;
  /** The label of each class id. */
  names: string[];
}

/** Integer labels above this are refused: they would make that many classes. */
const MAX_INTEGER_LABEL = 1_000_000;

type Seen = { kind: "integer" | "string" | "digits"; place: string };

/** Reads a label column once, checking every value, and builds the map. */
export class LabelCollector {
  private readonly strings = new Set<string>();
  private maxInteger = -1;
  private first: Seen | undefined;
  private allDigits = true;

  /** `textual`: the values come from CSV/TSV, where a number is written as text. */
  constructor(private readonly textual: boolean) {}

  add(value: unknown, file: string, place: string, column: string): void {
    const fail = (problem: string, fix: string) => new ClassificationInputError(file, place, column, problem, fix);
    let kind: Seen["kind"];
    if (typeof value === "string") {
      if (value.trim() === "") throw fail("the label is empty", "Give every record a label, or leave out the records without one");
      kind = this.textual && /^\d+$/.test(value) ? "digits" : "string";
      if (kind === "string") this.allDigits = false;
      this.strings.add(value);
      if (kind === "digits") this.maxInteger = Math.max(this.maxInteger, Number(value));
    } else if (typeof value === "number" || typeof value === "bigint") {
      const n = Number(value);
      if (!Number.isSafeInteger(n))
        throw fail(`the label ${String(value)} is not an integer`, "Use integer class ids (0, 1, …) or strings as labels");
      if (n < 0)
        throw fail(`the label ${n} is negative`, "Class ids start at 0; leave out unlabelled records (GLUE's test splits mark them -1)");
      kind = "integer";
      this.maxInteger = Math.max(this.maxInteger, n);
    } else {
      const what = value === undefined ? "missing" : value === null ? "null" : `a ${Array.isArray(value) ? "list" : typeof value}`;
      throw fail(
        value === undefined || value === null ? `the label is ${what}` : `the label is ${what}, a type labels cannot have`,
        'Labels are strings ("spam") or integer class ids (0, 1, …)',
      );
    }
    if (this.maxInteger > MAX_INTEGER_LABEL)
      throw fail(`the label ${this.maxInteger} would make more than ${MAX_INTEGER_LABEL} classes`, "Number the classes from 0");
    // Strings and digit strings mix freely in CSV/TSV (the column is then of strings); numbers and strings do not.
    const family = (k: Seen["kind"]) => (k === "integer" ? "integer" : "string");
    if (!this.first) this.first = { kind, place };
    else if (family(this.first.kind) !== family(kind)) {
      const [now, then] = kind === "integer" ? ["a number", "a string"] : ["a string", "a number"];
      throw fail(
        `the label is ${now}, but at ${this.first.place} it is ${then}`,
        "Write every label of the column the same way: all strings, or all integer class ids",
      );
    }
  }

  /** The map, once every label has been added. */
  finish(): LabelMap {
    const integer = this.first?.kind === "integer" || (this.textual && this.strings.size > 0 && this.allDigits);
    if (integer) return { kind: "integer", names: Array.from({ length: this.maxInteger + 1 }, (_, i) => String(i)) };
    return { kind: "string", names: [...this.strings].sort() };
  }
}

/** The class id of a label that LabelCollector accepted. */
export function labelIds(map: LabelMap): (value: unknown) => number {
  if (map.kind === "integer") return (value) => Number(value);
  const ids = new Map(map.names.map((name, id) => [name, id]));
  return (value) => ids.get(value as string)!;
}

/** The map as prepare.json records it: transformers' id2label / label2id. */
export function labelMapJson(map: LabelMap, counts: readonly number[]): object {
  return {
    kind: map.kind,
    id2label: Object.fromEntries(map.names.map((name, id) => [String(id), name])),
    label2id: Object.fromEntries(map.names.map((name, id) => [name, id])),
    counts,
  };
}
