// The flag table: parsing by type, defaults, `--help` from the same table, errors that name the flag,
// the value and what it must be, the nearest known flag for a mistyped one, values that start with "-",
// and a library OptionError named by the flag that set the option.
import test from "node:test";
import assert from "node:assert/strict";
import { flagTable, helpText, optionErrorMessage, readFlags } from "../../src/cli/flags.js";
import { UsageError } from "../../src/cli/args.js";
import { editDistance, nearest } from "../../src/cli/nearest.js";
import { OptionError } from "../../src/core/option-error.js";

const TABLE = flagTable({
  command: "demo",
  usage: "Usage: kiln demo --out DIR [flags]",
  about: "Does nothing, for the test.",
  flags: {
    out: { type: "string", value: "DIR", required: true, help: "where to write" },
    "max-steps": { type: "int", min: 1, help: "stop after N steps" },
    "learning-rate": { type: "number", default: 1e-4, help: "peak rate", check: (x) => (x >= 0 ? undefined : "must be ≥ 0") },
    shift: { type: "number", default: 0, help: "may be negative" },
    input: { type: "list", value: "FILE", help: "inputs" },
    task: { type: "enum", values: ["mlm", "causal-lm"], default: "mlm", help: "what to train" },
    quiet: { type: "bool", help: "no progress bar" },
    "on-nan": { type: "enum", values: ["stop", "skip"], default: "stop", option: "onNonFinite", help: "a NaN step" },
  },
});

/** readFlags without printing: the values, or the usage error's message. */
function parse(...argv: string[]) {
  try {
    return readFlags(TABLE, argv)!;
  } catch (e) {
    assert.ok(e instanceof UsageError, String(e));
    return e.message;
  }
}

test("values come typed, with defaults, repeated list flags and --name=value", () => {
  const p = parse("--out", "o", "--max-steps=3", "--input", "a", "--input", "b", "--quiet", "--task", "causal-lm");
  assert.ok(typeof p !== "string");
  assert.deepEqual(p.values, {
    out: "o",
    "max-steps": 3,
    "learning-rate": 1e-4,
    shift: 0,
    input: ["a", "b"],
    task: "causal-lm",
    quiet: true,
    "on-nan": "stop",
  });
  assert.deepEqual([...p.given].sort(), ["input", "max-steps", "out", "quiet", "task"]);
  assert.equal(p.raw["max-steps"], "3");
});

test("a value that starts with - is a value: accepted or refused by the flag's check, never 'ambiguous'", () => {
  const p = parse("--out", "o", "--shift", "-1.5");
  assert.ok(typeof p !== "string");
  assert.equal(p.values.shift, -1.5);
  assert.equal(parse("--out", "o", "--learning-rate", "-1"), "--learning-rate must be ≥ 0, got -1");
  assert.equal(parse("--out", "o", "--max-steps", "-2"), '--max-steps must be an integer ≥ 1, got "-2"');
  // A flag where its value should be: this one has none.
  assert.match(
    parse("--max-steps", "--out", "o") as string,
    /^kiln demo: --max-steps needs a value \(--max-steps N; .*--max-steps=VALUE\)/,
  );
});

test("errors name the flag, the value and what it must be", () => {
  assert.equal(parse("--out", "o", "--max-steps", "abc"), '--max-steps must be an integer ≥ 1, got "abc"');
  assert.equal(parse("--out", "o", "--learning-rate", "fast"), '--learning-rate must be a number, got "fast"');
  assert.equal(parse("--out", "o", "--task", "clm"), '--task must be mlm or causal-lm, got "clm"');
  assert.equal(parse("--max-steps", "2"), "kiln demo: --out is required\nRun `kiln demo --help` for the flags it takes.");
  assert.match(parse("--out", "o", "--quiet=yes") as string, /^kiln demo: --quiet takes no value/);
  assert.equal(parse("--out", "o", "stray"), 'kiln demo: unexpected argument "stray" (flags start with --; run `kiln demo --help`)');
});

test("a mistyped flag gets the nearest known one; a word far from all of them gets none", () => {
  assert.equal(
    parse("--out", "o", "--max-step", "2"),
    "kiln demo: unknown flag --max-step (did you mean --max-steps?)\nRun `kiln demo --help` for the flags it takes.",
  );
  assert.match(parse("--out", "o", "--learning-rat", "1") as string, /unknown flag --learning-rat \(did you mean --learning-rate\?\)/);
  assert.match(parse("--out", "o", "--qiuet") as string, /unknown flag --qiuet \(did you mean --quiet\?\)/);
  assert.match(parse("--out", "o", "--frobnicate") as string, /^kiln demo: unknown flag --frobnicate\n/);
  assert.equal(editDistance("trian", "train"), 1, "a swap of neighbours is one edit");
  assert.equal(nearest("trian", ["train", "data", "tokenizer"]), "train");
  assert.equal(nearest("xyz", ["train", "data"]), undefined);
});

test("--help comes from the table: every flag, its placeholder, default and required mark", () => {
  const help = helpText(TABLE);
  assert.ok(help.startsWith("Usage: kiln demo --out DIR [flags]\n\nDoes nothing, for the test.\n\nFlags:\n"), help);
  // One column for the help, after the longest flag and its placeholder ("--task mlm|causal-lm").
  const line = (head: string, text: string) => `\n  ${head.padEnd("--task mlm|causal-lm".length)}  ${text}`;
  assert.ok(help.includes(line("--out DIR", "where to write (required)\n")), help);
  assert.ok(help.includes(line("--learning-rate X", "peak rate (default 1e-4)\n")), help);
  assert.ok(help.includes(line("--task mlm|causal-lm", "what to train (default mlm)\n")), help);
  assert.ok(help.includes(line("--max-steps N", "stop after N steps\n")), "no default shown where there is none");
  assert.ok(help.endsWith(line("--on-nan stop|skip", "a NaN step (default stop)")), help);
  for (const name of Object.keys(TABLE.flags)) assert.ok(help.includes(`--${name}`), name);
});

test("a library OptionError names the flag that set the option, with the value as typed", () => {
  parse("--out", "o", "--max-steps", "7", "--on-nan", "skip");
  assert.equal(
    optionErrorMessage(
      new OptionError({ option: "maxSteps", value: 7, why: "is beyond the data", fix: "Lower maxSteps", where: "Trainer" }),
    ),
    'kiln demo: --max-steps "7": is beyond the data. Lower --max-steps',
  );
  assert.equal(
    optionErrorMessage(new OptionError({ option: "onNonFinite", value: "skip", why: 'cannot be "skip" with task "mlm"' })),
    'kiln demo: --on-nan "skip": cannot be "skip" with --task mlm',
  );
  // No flag sets it: the library's own words.
  assert.equal(
    optionErrorMessage(new OptionError({ option: "text", value: "x", why: "has no mask token" })),
    'kiln: text = "x" (a string) has no mask token',
  );
});
