// Flag parsing shared by every `kiln` subcommand: node's util.parseArgs, with errors that name the
// command and point at its --help.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { CPU_EXECUTORS, type CpuExecutorName } from "../distribute/devices.js";
import { outputLocationProblem } from "../io/output-location.js";
import { isGcsPath } from "../data/storage/index.js";

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

type ParsedFlags<O extends OptionSpec> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

export function parseFlags<O extends OptionSpec>(command: string, argv: string[], options: O): ParsedFlags<O> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`kiln ${command}: ${(e as Error).message}\nRun \`kiln ${command} --help\` for the flags it takes.`);
  }
}

/** Refuses positional arguments for a command that takes none (a mistyped flag, or a value without its flag). */
export function noPositionals(command: string, positionals: readonly string[]): void {
  if (positionals.length > 0)
    throw new UsageError(`kiln ${command}: unexpected argument "${positionals[0]}" (flags start with --; run \`kiln ${command} --help\`)`);
}

/** Parses an integer flag value, naming the flag when it is not one. */
export function intFlag(name: string, value: string | undefined, fallback: number, min = Number.MIN_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`--${name} must be an integer${min > Number.MIN_SAFE_INTEGER ? ` ≥ ${min}` : ""}, got "${value}"`);
  return n;
}

/** Parses a number flag value, naming the flag when it is not one. */
export function numberFlag(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${value}"`);
  return n;
}

/** Parses --executor: who runs the CPU ("ort" or "xla"; undefined when not given: ONNX Runtime). */
export function executorFlag(value: string | undefined): CpuExecutorName | undefined {
  if (value === undefined) return undefined;
  if (!CPU_EXECUTORS.includes(value as CpuExecutorName))
    throw new UsageError(
      `--executor must be ${CPU_EXECUTORS.join(" or ")} (who runs the CPU; GPUs and TPUs always run on XLA), got "${value}"`,
    );
  return value as CpuExecutorName;
}

/**
 * Refuses an output location that cannot be written (under /proc, /sys or /dev, under a file, or not
 * writable) before any work starts. gs:// outputs are checked by their own commands.
 */
export function checkOutputFlag(flag: string, path: string): void {
  if (isGcsPath(path)) return;
  const problem = outputLocationProblem(path);
  if (problem) throw new UsageError(`--${flag} ${path}: cannot write there: ${problem}`);
}
