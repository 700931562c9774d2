// `prepare.json`, the manifest `data prepare` keeps in each split directory: the settings, whether the
// run finished, and the record count. Readers check shards against it before trusting them.
import { createHash } from "node:crypto";
import { OptionError } from "../../core/option-error.js";
import { storageFor, joinPath } from "../storage/index.js";
import { recordsFromFileName } from "../shards.js";

export const MANIFEST = "prepare.json";

/** A split directory's prepare.json: the settings, whether the run finished, and the record count. */
export interface PrepareManifest {
  settings: { tokenizerSha256?: string; inputs?: { path: string }[]; [setting: string]: unknown };
  complete: boolean;
  records?: number;
}

/** The manifest of a split directory, or undefined where there is none (shards not made by data prepare). */
export async function readManifest(dir: string): Promise<PrepareManifest | undefined> {
  const path = joinPath(dir, MANIFEST);
  if (!(await storageFor(path).isFile(path))) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(await storageFor(path).readAll(path))) as PrepareManifest;
  } catch (e) {
    throw new Error(`${path} is not valid JSON (${(e as Error).message}); run kiln data prepare again to rewrite it`);
  }
}

/** The directory of a file path (local or gs://). */
export function parentDir(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "." : slash === 0 ? "/" : path.slice(0, slash);
}

/**
 * Refuses the shards of a split directory that a killed `data prepare` left unfinished, naming the
 * command that finishes it. With `shards` (every shard file found in the directory) also checks that
 * they are the shards the finished run wrote: indices 0..n-1 once each, adding up to its record count,
 * so an extra or missing shard does not silently change the epochs.
 */
export async function checkPreparedDir(dir: string, shards?: readonly string[]): Promise<void> {
  const manifest = await readManifest(dir);
  if (!manifest) return;
  if (manifest.complete !== true) {
    const split = dir.slice(dir.lastIndexOf("/") + 1);
    const inputs = (manifest.settings.inputs ?? []).map((i) => ` --input ${i.path}`).join("");
    throw new Error(
      `${dir} is an unfinished data prepare output (${MANIFEST} says "complete": false: the run was stopped before it finished). ` +
        `Finish it by running the same command again, which keeps the shards already written: ` +
        `kiln data prepare --tokenizer DIR${inputs} --out ${parentDir(dir)} ` +
        `(DIR: the tokenizer it was started with; split ${split}, same flags as before)`,
    );
  }
  if (!shards || manifest.records === undefined) return;
  const indices = new Map<number, string>();
  let records = 0;
  const problems: string[] = [];
  for (const shard of shards) {
    const name = shard.slice(shard.lastIndexOf("/") + 1);
    const m = /^dataset-(\d+)-\d+\.tfrecord(?:\.gz)?$/.exec(name);
    const count = recordsFromFileName(name);
    if (!m || count === undefined) {
      problems.push(`${name} is not a shard data prepare writes`);
      continue;
    }
    const index = Number(m[1]);
    if (indices.has(index)) problems.push(`${name} repeats shard ${index} (${indices.get(index)})`);
    indices.set(index, name);
    records += count;
  }
  for (let i = 0; i < indices.size; i++) if (!indices.has(i)) problems.push(`shard ${i} is missing`);
  if (records !== manifest.records) problems.push(`the shard names add up to ${records} records, ${MANIFEST} records ${manifest.records}`);
  if (problems.length > 0)
    throw new Error(
      `${dir}: the shards are not the ones data prepare wrote there: ${problems.join("; ")}. ` +
        `Remove the files that do not belong, or prepare the data again into a new directory.`,
    );
}

/**
 * Checks that the shards in `files` were prepared with the tokenizer in `tokenizerDir`, by the
 * SHA-256 of its tokenizer.json that each split's prepare.json records. Files without a manifest are
 * not checked (they were not made by data prepare).
 */
export async function checkDataTokenizer(files: readonly string[], tokenizerDir: string): Promise<void> {
  const tokenizerPath = joinPath(tokenizerDir, "tokenizer.json");
  let digest: string | undefined;
  for (const dir of new Set(files.map(parentDir))) {
    const recorded = (await readManifest(dir))?.settings.tokenizerSha256;
    if (recorded === undefined) continue;
    digest ??= createHash("sha256")
      .update(await storageFor(tokenizerPath).readAll(tokenizerPath))
      .digest("hex");
    if (recorded !== digest)
      throw new OptionError({
        option: "tokenizerDir",
        value: tokenizerDir,
        why:
          `is not the tokenizer the shards in ${dir} were prepared with: ` +
          `${joinPath(dir, MANIFEST)} records tokenizer.json sha256 ${recorded.slice(0, 12)}…, ` +
          `but ${tokenizerPath} has sha256 ${digest.slice(0, 12)}…`,
        fix: "Pass the tokenizer the data was prepared with, or prepare the data again with this one",
        where: "checkDataTokenizer",
      });
  }
}
