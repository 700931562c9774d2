// A training run's output directory. A fresh run refuses a directory that already holds files, so a
// finished run is never overwritten or mixed with a new one (transformers' `overwrite_output_dir`):
// `resume` continues the run that is there, `overwrite` clears Kiln's files from it first.
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { isCheckpointEntry } from "./checkpoint.js";
import { checkRunLock, RUN_LOCK_FILE } from "./run-lock.js";

/** What `kiln train` writes into an output directory (all of it removed by `overwrite`). */
const RUN_FILES = new Set([
  "config.json",
  "model.safetensors",
  "tokenizer.json",
  "tokenizer_config.json",
  "special_tokens_map.json",
  "metrics.jsonl",
  "loss_curve.html",
  "runs",
  "onnx",
  "checksums.json",
]);

/**
 * A fresh run refused for an output directory that holds files. Its message names the library options
 * (`resume`, `overwrite`, `outputDir`); `describe` words it with other names (the CLI's flags).
 */
export class OutputDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly entries: string[],
  ) {
    super(OutputDirInUseError.describe(dir, entries, (option) => (option === "outputDir" ? option : `${option}: true`)));
    this.name = "OutputDirInUseError";
  }

  /** The message, each option named by `name` ("resume" → "--resume"). */
  static describe(dir: string, entries: readonly string[], name: (option: "resume" | "overwrite" | "outputDir") => string): string {
    const shown = entries.slice(0, 4).join(", ") + (entries.length > 4 ? `, … (${entries.length} entries)` : "");
    return (
      `the output directory ${dir} is not empty (${shown}): pass ${name("resume")} to continue the run in it, ` +
      `${name("overwrite")} to replace it, or choose another ${name("outputDir")}`
    );
  }
}

async function entriesOf(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => n !== RUN_LOCK_FILE).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
}

/**
 * Checks (and with `overwrite`, clears) the output directory of a fresh run. A directory that does not
 * exist or is empty is fine; one with entries is refused unless `resume` or `overwrite` is given.
 * Returns the names `overwrite` removed. A directory another live run holds (run-lock.ts) is refused in
 * every case, resume and overwrite included.
 */
export async function prepareOutputDir(dir: string, o: { resume: boolean; overwrite: boolean }): Promise<string[]> {
  await checkRunLock(dir);
  const entries = await entriesOf(dir);
  if (entries.length === 0 || o.resume) return [];
  if (!o.overwrite) throw new OutputDirInUseError(dir, entries);
  const removed = entries.filter((n) => RUN_FILES.has(n) || isCheckpointEntry(n));
  for (const n of removed) await rm(join(dir, n), { recursive: true, force: true });
  return removed;
}
