// Each `kiln` command's flags as one declarative table: name, type, default, help and check. Parsing,
// `--help` and validation all come from it, so a flag is described once and every error names the flag,
// the value and what to do. A mistyped flag gets the nearest known one suggested; a value may start with
// "-" (`--learning-rate -1` is a value, then refused or accepted by the flag's check).
import { OptionError } from "../core/option-error.js";
import { UsageError } from "./args.js";
import { didYouMean } from "./nearest.js";

/** Why a value is wrong, as a clause ("must be ≥ 0"), optionally with what to do instead; undefined when it is fine. */
export type Problem = string | { why: string; fix: string } | undefined;

interface FlagCommon {
  /** One line (or several, joined by "\n") for `--help`; "(default X)" is added when it does not say its default. */
  help: string;
  /** The value's placeholder in `--help` ("DIR", "N"); by type when left out. */
  value?: string;
  /** A heading in `--help` ("Training:"), printed before the first flag of each group. */
  group?: string;
  /** Refused when not given. */
  required?: boolean;
  /** The library option it sets, when not the flag's name in camelCase (`onNonFinite` for --on-nan), so errors name the flag. */
  option?: string;
}

export type FlagSpec =
  | (FlagCommon & { type: "string"; default?: string; check?: (value: string) => Problem })
  | (FlagCommon & { type: "int"; default?: number; min?: number; check?: (value: number) => Problem })
  | (FlagCommon & { type: "number"; default?: number; check?: (value: number) => Problem })
  | (FlagCommon & { type: "bool" })
  | (FlagCommon & { type: "list"; check?: (value: string) => Problem })
  | (FlagCommon & { type: "enum"; values: readonly string[]; default?: string; why?: string });

export type FlagSpecs = Record<string, FlagSpec>;

export interface FlagTable<F extends FlagSpecs> {
  /** The command as typed after `kiln`: "train", "data prepare". */
  command: string;
  /** `--help`'s first line(s): "Usage: kiln train …". */
  usage: string;
  /** What the command does, between the usage and the flags. */
  about?: string;
  flags: F;
  /** What the positional arguments are, when the command takes any ("TEXT…"); without it a stray argument is refused. */
  positionals?: string;
  /** Text after the flags. */
  footer?: string;
}

type ValueOf<S> = S extends { type: "int" | "number" }
  ? number
  : S extends { type: "bool" }
    ? boolean
    : S extends { type: "list" }
      ? string[]
      : S extends { type: "enum"; values: readonly (infer V extends string)[] }
        ? V
        : string;

/** The parsed values: a required flag, one with a default, and a bool always have one; the others are undefined when not given. */
export type FlagValues<F extends FlagSpecs> = {
  [K in keyof F]: F[K] extends { type: "bool" } | { default: unknown } | { required: true } ? ValueOf<F[K]> : ValueOf<F[K]> | undefined;
};

export interface ParsedFlags<F extends FlagSpecs> {
  values: FlagValues<F>;
  positionals: string[];
  /** The flags given on the command line (a flag at its default counts only when given). */
  given: ReadonlySet<keyof F & string>;
  /** Each given flag's value as typed (the last one for a repeated flag), for messages. */
  raw: Readonly<Record<string, string>>;
}

/** Declares a command's table (the `const` keeps enum values and types literal for the parsed values). */
export function flagTable<const F extends FlagSpecs>(table: FlagTable<F>): FlagTable<F> {
  return table;
}

/** The table and values of the command being run: the CLI runs one command per process, and its errors name its flags. */
let current: { table: FlagTable<FlagSpecs>; raw: Readonly<Record<string, string>> } | undefined;

function helpPointer(command: string): string {
  return `Run \`kiln ${command} --help\` for the flags it takes.`;
}

function usage(table: FlagTable<FlagSpecs>, message: string): UsageError {
  return new UsageError(`kiln ${table.command}: ${message}\n${helpPointer(table.command)}`);
}

const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function formatDefault(value: unknown): string {
  return typeof value === "number" && value !== 0 && (Math.abs(value) < 1e-3 || Math.abs(value) >= 1e6)
    ? value.toExponential()
    : String(value);
}

function placeholder(spec: FlagSpec): string {
  if (spec.type === "bool") return "";
  if (spec.value !== undefined) return spec.value;
  switch (spec.type) {
    case "int":
      return "N";
    case "number":
      return "X";
    case "list":
      return "VALUE...";
    case "enum":
      return spec.values.length <= 2 ? spec.values.join("|") : "NAME";
    default:
      return "VALUE";
  }
}

/** `--help`: the usage, what the command does, then every flag with its help, default and group headings. */
export function helpText(table: FlagTable<FlagSpecs>): string {
  const entries = Object.entries(table.flags);
  const heads = entries.map(([name, spec]) => `--${name}${spec.type === "bool" ? "" : ` ${placeholder(spec)}`}`);
  const width = Math.min(26, Math.max(0, ...heads.map((h) => h.length)));
  const lines: string[] = [];
  let group: string | undefined;
  entries.forEach(([, spec], i) => {
    if (spec.group !== undefined && spec.group !== group) lines.push(spec.group);
    group = spec.group ?? group;
    const defaulted = "default" in spec && spec.default !== undefined && !/\bdefault\b/.test(spec.help);
    const required = spec.required && !/\brequired\b/.test(spec.help);
    const text = (spec.help + (defaulted ? ` (default ${formatDefault(spec.default)})` : "") + (required ? " (required)" : "")).split("\n");
    const head = heads[i]!;
    lines.push(`  ${head.padEnd(width)}  ${text[0]}`);
    for (const more of text.slice(1)) lines.push(`  ${"".padEnd(width)}  ${more}`);
  });
  const heading = entries[0]?.[1].group === undefined ? ["Flags:"] : [];
  return [
    table.usage,
    ...(table.about ? ["", table.about] : []),
    "",
    ...heading,
    ...lines,
    ...(table.footer ? ["", table.footer] : []),
  ].join("\n");
}

function refuse(name: string, why: string, shown: string, fix?: string): UsageError {
  return new UsageError(`--${name} ${why}, got ${shown}${fix ? `; ${fix}` : ""}`);
}

function checked<T>(name: string, value: T, shown: string, check: ((value: T) => Problem) | undefined): T {
  const problem = check?.(value);
  if (problem === undefined) return value;
  throw typeof problem === "string" ? refuse(name, problem, shown) : refuse(name, problem.why, shown, problem.fix);
}

/** One flag's value from its text, or a usage error naming the flag, the value and what it must be. */
function convert(name: string, spec: FlagSpec, raw: string): unknown {
  const quoted = JSON.stringify(raw);
  switch (spec.type) {
    case "int": {
      const n = Number(raw);
      const min = spec.min ?? Number.MIN_SAFE_INTEGER;
      if (raw.trim() === "" || !Number.isInteger(n) || n < min)
        throw refuse(name, `must be an integer${spec.min !== undefined ? ` ≥ ${spec.min}` : ""}`, quoted);
      return checked(name, n, quoted, spec.check);
    }
    case "number": {
      const n = Number(raw);
      if (raw.trim() === "" || !Number.isFinite(n)) throw refuse(name, "must be a number", quoted);
      // A number its check refuses is shown as typed (`got -1`): it is plainly a number.
      return checked(name, n, raw, spec.check);
    }
    case "enum": {
      if (spec.values.includes(raw)) return raw;
      const list = spec.values.length <= 2 ? spec.values.join(" or ") : `one of ${spec.values.join(", ")}`;
      // Every value is listed in the message: no suggestion needed.
      throw refuse(name, spec.why ?? `must be ${list}`, quoted);
    }
    case "string":
    case "list":
      return checked(name, raw, quoted, spec.check);
    case "bool":
      return true;
  }
}

/**
 * Parses `argv` by the table: `--name value`, `--name=value`, a bool as `--name`, a list flag repeated,
 * positionals (before or after the flags, and everything after `--`). Returns undefined after printing
 * `--help` (asked for with --help or -h anywhere before `--`).
 */
export function readFlags<F extends FlagSpecs>(table: FlagTable<F>, argv: readonly string[]): ParsedFlags<F> | undefined {
  const flags: FlagSpecs = table.flags;
  const end = argv.indexOf("--");
  if (argv.slice(0, end < 0 ? undefined : end).some((a) => a === "--help" || a === "-h")) {
    console.log(helpText(table));
    return undefined;
  }
  const names = Object.keys(flags);
  const values: Record<string, unknown> = {};
  const raw: Record<string, string> = {};
  const given = new Set<string>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-" || /^-\d/.test(arg)) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(arg.startsWith("--") ? 2 : 1, eq < 0 ? undefined : eq);
    const spec = arg.startsWith("--") ? flags[name] : undefined;
    if (!spec) throw usage(table, `unknown flag ${arg.split("=")[0]}${didYouMean(name, names, (n) => `--${n}`)}`);
    let text: string;
    if (spec.type === "bool") {
      if (eq >= 0) throw usage(table, `--${name} takes no value (give it alone to turn it on), got "${arg.slice(eq + 1)}"`);
      text = "true";
    } else if (eq >= 0) text = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      // A value may start with "-" (a negative number); one that starts with "--" is the next flag, so this one has none.
      if (next === undefined || next.startsWith("--"))
        throw usage(
          table,
          `--${name} needs a value (--${name} ${placeholder(spec)}` +
            `${next === undefined ? "" : `; for one that starts with --, write --${name}=VALUE`})`,
        );
      text = next;
      i++;
    }
    const value = convert(name, spec, text);
    values[name] = spec.type === "list" ? [...((values[name] as string[] | undefined) ?? []), value] : value;
    raw[name] = text;
    given.add(name);
  }
  if (positionals.length > 0 && table.positionals === undefined)
    throw new UsageError(
      `kiln ${table.command}: unexpected argument "${positionals[0]}" (flags start with --; run \`kiln ${table.command} --help\`)`,
    );
  for (const [name, spec] of Object.entries(flags)) {
    if (given.has(name)) continue;
    if (spec.required) throw usage(table, `--${name} is required`);
    if (spec.type === "bool") values[name] = false;
    else if ("default" in spec && spec.default !== undefined) values[name] = spec.default;
  }
  current = { table: table as FlagTable<FlagSpecs>, raw };
  return { values: values as FlagValues<F>, positionals, given: given as Set<keyof F & string>, raw };
}

/** The command being run ("train", "data prepare"), once its flags are read. */
export function currentCommand(): string | undefined {
  return current?.table.command;
}

/** The flag of the command being run that sets the library option `option` ("maxSteps" → "max-steps"), if any. */
export function flagOf(option: string): string | undefined {
  if (!current) return undefined;
  const last = option.split(".").at(-1)!;
  const entries = Object.entries(current.table.flags);
  return (
    entries.find(([, spec]) => spec.option === option)?.[0] ??
    entries.find(([name]) => camel(name) === option)?.[0] ??
    entries.find(([name, spec]) => spec.option === undefined && camel(name) === last)?.[0]
  );
}

/**
 * The library's option names in `text` as the command's flags: an option followed by a quoted value
 * (`task "mlm"` → `--task mlm`), and the names of two words or more anywhere ("maxLength" → "--max-length"),
 * which cannot be mistaken for plain words.
 */
export function inFlagWords(text: string, table: FlagTable<FlagSpecs> | undefined = current?.table): string {
  if (!table) return text;
  let out = text;
  for (const [name, spec] of Object.entries(table.flags)) {
    const option = (spec.option ?? camel(name)).replace(/\./g, "\\.");
    out = out.replace(new RegExp(`\\b${option} "([^"\\s]*)"`, "g"), `--${name} $1`);
    if (/[A-Z.]/.test(option)) out = out.replace(new RegExp(`\\b${option}\\b`, "g"), `--${name}`);
  }
  return out;
}

/**
 * A library OptionError in the words of the command line: the flag that set the option and the value
 * as typed (`--max-steps "abc": must be …`), or the library's own message when no flag sets it.
 */
export function optionErrorMessage(e: OptionError): string {
  const flag = flagOf(e.option);
  const spec = flag === undefined ? undefined : current?.table.flags[flag];
  // A flag names the value only where the user set it, or where its default did (a value the
  // user did not choose, say a tokenizer read from the model's own directory, keeps the library's words).
  if (flag === undefined || !current || !spec || (current.raw[flag] === undefined && !("default" in spec))) return `kiln: ${e.message}`;
  const typed = current.raw[flag];
  const shown = spec.type === "bool" ? "" : ` ${typed !== undefined ? JSON.stringify(typed) : JSON.stringify(String(e.value))}`;
  const words = (text: string) => inFlagWords(text, current!.table);
  return `kiln ${current.table.command}: --${flag}${shown}: ${words(e.why)}${e.fix ? `. ${words(e.fix)}` : ""}`;
}
