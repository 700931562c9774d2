// The checks every public entry point makes on its options object before doing any work: names it does
// not know (a typo, or another library's spelling: `max_new_tokens` for `maxNewTokens`) and settings that
// contradict each other are refused instead of ignored, and strings where numbers belong are refused
// instead of compared as strings. Plain JavaScript callers have no type checker, so this is their only
// guard. Every refusal is an OptionError naming the option, the value as given, and the fix.
import { OptionError } from "./option-error.js";

/** Two options that cannot be given together (`when` narrows it, e.g. to `greedy: true`). */
export interface OptionConflict {
  options: readonly [string, string];
  /** Whether the pair conflicts as given (default: both are set). */
  when?: (given: Readonly<Record<string, unknown>>) => boolean;
  /** What to do instead, as a sentence. */
  fix: string;
}

export interface OptionRules {
  /** Options that must be finite numbers. */
  numbers?: readonly string[];
  /** Options that must be integers (safe integers). */
  ints?: readonly string[];
  /** Of the numbers and integers, those that must be > 0. */
  positive?: readonly string[];
  /** Of the numbers and integers, those that must be ≥ 0. */
  nonNegative?: readonly string[];
  /** Of the numbers, those that must lie in [0, 1] (a probability, a share); with `positive`, in (0, 1]. */
  fractions?: readonly string[];
  booleans?: readonly string[];
  strings?: readonly string[];
  /** Options that take one of a few values. */
  choices?: Readonly<Record<string, readonly unknown[]>>;
  conflicts?: readonly OptionConflict[];
  /** The name of the object the options sit in, for nested ones: "optimizer" reports "optimizer.learningRate". */
  prefix?: string;
}

/** Edit distance (insertions, deletions, substitutions), for suggesting the name that was meant. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** Spelling that does not matter for a match: case, `_` and `-` (`max_new_tokens` is `maxNewTokens`). */
const fold = (name: string) => name.toLowerCase().replace(/[_-]/g, "");

/** The known name closest to `name`, when one is close enough to be what was meant. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const f = fold(name);
  for (const k of known) {
    // A name that is the start of a known one, or the other way round, is what was meant (donate: donateArgs).
    const prefix = f.length >= 4 && (fold(k).startsWith(f) || f.startsWith(fold(k)));
    const d = prefix ? 1 : editDistance(f, fold(k));
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(fold(name).length / 3)) ? best : undefined;
}

/** "did you mean maxNewTokens? The options are …" for a name that is not one of `known`. */
export function unknownNameFix(name: string, known: readonly string[], kind = "options"): string {
  const near = nearestName(name, known);
  // A long list adds little beside a near match; without one, it is the only help.
  if (near && known.length > 12) return `Did you mean ${near}?`;
  return (near ? `Did you mean ${near}? ` : "") + `The ${kind} are ${known.join(", ")}`;
}

/** Whether `value` is a plain options object (not an array, a class instance or a primitive). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The fix for a number option given something else: a string that reads as a number gets its number shown. */
function numberFix(option: string, value: unknown, example: string): string {
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)))
    return `Pass the number, not a string: ${option}: ${Number(value)}`;
  return `Pass a number, e.g. ${option}: ${example}`;
}

/**
 * Checks an options object: an object (or undefined), only `known` names, the types and ranges `rules`
 * give, and no conflicting pair. `where` is the function or class the options were given to, as the
 * user called it ("generate", "Trainer", "k.zeros"). Options left undefined are not checked.
 */
export function checkOptions(where: string, given: unknown, known: readonly string[], rules: OptionRules = {}): void {
  if (given === undefined) return;
  const dotted = (name: string) => (rules.prefix ? `${rules.prefix}.${name}` : name);
  if (!isPlainObject(given))
    throw new OptionError({
      where,
      option: rules.prefix ?? "options",
      value: given,
      why: "is not an options object",
      fix: `Pass an object of named settings, e.g. { ${known[0] ?? "name"}: … }`,
    });
  for (const name of Object.keys(given))
    if (!known.includes(name))
      throw new OptionError({
        where,
        option: dotted(name),
        value: given[name],
        why: `is not an option of ${where}`,
        fix: unknownNameFix(name, known),
      });
  const has = (name: string) => given[name] !== undefined;
  const positive = new Set(rules.positive),
    nonNegative = new Set(rules.nonNegative),
    fractions = new Set(rules.fractions);
  const range = (name: string, v: number) => {
    if (fractions.has(name) && !(v <= 1 && (positive.has(name) ? v > 0 : v >= 0)))
      return positive.has(name) ? "must be in (0, 1]" : "must be in [0, 1]";
    if (positive.has(name) && !(v > 0)) return "must be > 0";
    if (nonNegative.has(name) && !(v >= 0)) return "must be ≥ 0";
    return undefined;
  };
  for (const name of rules.ints ?? []) {
    if (!has(name)) continue;
    const v = given[name];
    const kind = positive.has(name) ? "a positive integer" : nonNegative.has(name) ? "a non-negative integer" : "an integer";
    if (typeof v !== "number" || !Number.isSafeInteger(v))
      throw new OptionError({
        where,
        option: dotted(name),
        value: v,
        why: `must be ${kind}`,
        fix: numberFix(dotted(name), v, positive.has(name) ? "1" : "0"),
      });
    const bad = range(name, v);
    if (bad) throw new OptionError({ where, option: dotted(name), value: v, why: `must be ${kind}` });
  }
  for (const name of rules.numbers ?? []) {
    if (!has(name)) continue;
    const v = given[name];
    if (typeof v !== "number" || !Number.isFinite(v))
      throw new OptionError({
        where,
        option: dotted(name),
        value: v,
        why: "must be a finite number",
        fix: numberFix(dotted(name), v, "0.5"),
      });
    const bad = range(name, v);
    if (bad) throw new OptionError({ where, option: dotted(name), value: v, why: bad });
  }
  for (const name of rules.booleans ?? []) {
    if (has(name) && typeof given[name] !== "boolean")
      throw new OptionError({
        where,
        option: dotted(name),
        value: given[name],
        why: "must be true or false",
        fix: `Pass ${name}: true or ${name}: false`,
      });
  }
  for (const name of rules.strings ?? []) {
    if (has(name) && typeof given[name] !== "string")
      throw new OptionError({ where, option: dotted(name), value: given[name], why: "must be a string" });
  }
  for (const [name, choices] of Object.entries(rules.choices ?? {})) {
    if (has(name) && !choices.includes(given[name]))
      throw new OptionError({
        where,
        option: dotted(name),
        value: given[name],
        why: `is not one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`,
        ...(typeof given[name] === "string" ? { fix: unknownNameFix(given[name] as string, choices.map(String), "choices") } : {}),
      });
  }
  for (const c of rules.conflicts ?? []) {
    const [a, b] = c.options;
    if (has(a) && has(b) && (c.when?.(given) ?? true))
      throw new OptionError({
        where,
        option: dotted(b),
        value: given[b],
        why: `conflicts with ${dotted(a)} = ${JSON.stringify(given[a])}`,
        fix: c.fix,
      });
  }
}

/** Checks one argument that must be an integer in a range (a count, a length); `name` is the argument's name. */
export function checkInteger(where: string, name: string, value: unknown, min = 0): asserts value is number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min)
    throw new OptionError({
      where,
      option: name,
      value,
      why: min === 1 ? "must be a positive integer" : min === 0 ? "must be a non-negative integer" : `must be an integer ≥ ${min}`,
      fix: numberFix(name, value, String(Math.max(min, 1))),
    });
}
