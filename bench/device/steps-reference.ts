// The reference file of `steps.js record` (the bundle's reference/cpu-steps.json): where and on what it
// was recorded, a fingerprint of the data, and each task's settings and per-step losses. Reading it
// checks every field, so that a damaged or hand-edited file is an error naming the field.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeJsonAtomic } from "../../src/io/atomic-file.js";
import { dataPaths, type StepTask } from "./steps-tasks.js";

export const REFERENCE_FORMAT = "kiln-device-steps/1";

export interface RecordedTask extends StepTask {
  readonly losses: readonly number[];
}

export interface StepsReference {
  readonly format: typeof REFERENCE_FORMAT;
  /** Who computed the losses: executor, device, its version, and Node's. */
  readonly recordedOn: { readonly executor: string; readonly device: string; readonly version: string; readonly node: string };
  /** SHA-256 of the tokenizer.json and of each training shard, by file name. */
  readonly data: Readonly<Record<string, string>>;
  readonly tasks: readonly RecordedTask[];
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** The data the runs read, by content: the tokenizer and the training shards. */
export function dataFingerprint(dataDir: string): Record<string, string> {
  const { tokenizer, train } = dataPaths(dataDir);
  const out: Record<string, string> = { "tokenizer/tokenizer.json": sha256(join(tokenizer, "tokenizer.json")) };
  let shards: string[];
  try {
    shards = readdirSync(train).filter((f) => /\.tfrecord(\.gz)?$/.test(f));
  } catch {
    throw new Error(`${train}: no such directory (the data directory holds tokenizer/ and shards/train/ from kiln data prepare)`);
  }
  if (!shards.length) throw new Error(`${train}: no .tfrecord shards (the data directory holds shards/train/ from kiln data prepare)`);
  for (const f of shards.sort()) out[`shards/train/${f}`] = sha256(join(train, f));
  return out;
}

export async function writeReference(path: string, ref: StepsReference): Promise<void> {
  await writeJsonAtomic(path, ref);
}

const TASK_NUMBERS = ["steps", "batch", "maxLength", "learningRate", "weightDecay", "warmupSteps", "seed", "dataSeed"] as const;

/** Reads and checks a reference file; errors name the file and the field. */
export function readReference(path: string): StepsReference {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`--reference ${path}: ${(e as Error).message} (make one with: steps.js record --data DIR --out FILE)`);
  }
  const bad = (what: string) => new Error(`--reference ${path}: ${what} (make a new one with: steps.js record --data DIR --out FILE)`);
  const r = raw as Partial<StepsReference>;
  if (r.format !== REFERENCE_FORMAT) throw bad(`format is ${JSON.stringify(r.format)}, expected "${REFERENCE_FORMAT}"`);
  if (!r.data || typeof r.data !== "object") throw bad("no data fingerprint");
  if (!Array.isArray(r.tasks) || !r.tasks.length) throw bad("no tasks");
  r.tasks.forEach((t: Partial<RecordedTask>, i) => {
    if (t.task !== "mlm" && t.task !== "causal-lm") throw bad(`tasks[${i}].task must be "mlm" or "causal-lm"`);
    if (typeof t.preset !== "string") throw bad(`tasks[${i}].preset must be a preset name`);
    for (const key of TASK_NUMBERS)
      if (typeof t[key] !== "number" || !Number.isFinite(t[key])) throw bad(`tasks[${i}].${key} must be a number`);
    if (!Array.isArray(t.losses) || t.losses.length !== t.steps || t.losses.some((l) => typeof l !== "number" || !Number.isFinite(l)))
      throw bad(`tasks[${i}].losses must hold ${t.steps} finite numbers`);
  });
  return r as StepsReference;
}

/** Refuses data that differs from the data the reference was recorded on (the losses would differ by design). */
export function checkSameData(ref: StepsReference, refPath: string, dataDir: string): void {
  const now = dataFingerprint(dataDir);
  const names = new Set([...Object.keys(ref.data), ...Object.keys(now)]);
  const differ = [...names].filter((n) => ref.data[n] !== now[n]);
  if (differ.length)
    throw new Error(
      `--data ${dataDir} is not the data --reference ${refPath} was recorded on: ${differ.join(", ")} differ ` +
        `(compare on the bundle's own data/, or record a new reference on this data)`,
    );
}
