// The one error a library function throws when a setting it was given is wrong. It carries the setting's
// library name (`option`, e.g. "maxSteps" or "generate.temperature"), the value, why it is wrong and what
// to do, so a library user reads it in the words of the call they made and the CLI can name its own flag
// instead (it maps `option` to the flag that set it). Library code never names a CLI flag.

/** A value as a user should see it in a message: strings quoted, with the type when it is not obvious. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return `${JSON.stringify(value)} (a string)`;
  if (typeof value === "bigint") return `${value}n (a bigint)`;
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) {
    const shown = value.slice(0, 4).map((v) => (typeof v === "string" ? JSON.stringify(v) : String(v)));
    return `[${shown.join(", ")}${value.length > 4 ? `, …] (an array of ${value.length})` : "]"}`;
  }
  if (ArrayBuffer.isView(value)) {
    const name = value.constructor.name;
    return `${/^[AEIOU]/.test(name) ? "an" : "a"} ${name}` + ("length" in value ? ` of ${value.length}` : "");
  }
  // A Kiln Array (duck-typed: this file sits below array.ts): its dtype and shape say what it is.
  if (
    typeof value === "object" &&
    typeof (value as { dtype?: unknown }).dtype === "string" &&
    Array.isArray((value as { shape?: unknown }).shape)
  )
    return `an array ${(value as { dtype: string }).dtype}[${(value as { shape: number[] }).shape.join(",")}]`;
  // An instance of a class is named by its class ("a TFRecordDataset"), a plain object by its keys.
  const proto: unknown = typeof value === "object" ? Object.getPrototypeOf(value) : null;
  if (proto !== null && proto !== Object.prototype) {
    const name = (value as object).constructor?.name ?? "object";
    return `${/^[AEIOU]/.test(name) ? "an" : "a"} ${name}`;
  }
  if (typeof value === "object") return `an object (${Object.keys(value).slice(0, 4).join(", ") || "no keys"})`;
  if (typeof value === "function") return "a function";
  return String(value);
}

export interface OptionProblem {
  /** The setting's library name, dotted for nested ones: "maxSteps", "generate.temperature". */
  option: string;
  value: unknown;
  /** Why the value is wrong, as a clause: "must be a positive integer". */
  why: string;
  /** What to do instead, as a sentence. Optional when `why` already says it. */
  fix?: string;
  /** The function or class the value was given to: "Trainer", "generate". */
  where?: string;
}

/** The error a library function throws for a wrong setting: the option's name, its value, why, and what to do. */
export class OptionError extends Error {
  readonly option: string;
  readonly value: unknown;
  readonly why: string;
  readonly fix: string | undefined;
  readonly where: string | undefined;

  constructor(problem: OptionProblem) {
    const at = problem.where ? `${problem.where}: ` : "";
    super(`${at}${problem.option} = ${describeValue(problem.value)} ${problem.why}` + (problem.fix ? `. ${problem.fix}` : ""));
    this.name = "OptionError";
    this.option = problem.option;
    this.value = problem.value;
    this.why = problem.why;
    this.fix = problem.fix;
    this.where = problem.where;
  }
}
