// What every `kiln` subcommand shares besides its flag table (src/cli/flags.ts): the usage error (exit 2)
// and the check of an output location before any work.
import { outputLocationProblem } from "../io/output-location.js";
import { isGcsPath } from "../data/storage/index.js";

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
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
