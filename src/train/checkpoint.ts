// Checkpoints: `checkpoint-{step}/` directories a Python user recognizes (config.json,
// model.safetensors, tokenizer files) plus what resuming needs (optimizer.safetensors,
// trainer_state.json). Each is written under a temporary name and renamed into place, so a killed run
// leaves only whole checkpoints (a checkpoint rewritten at the same step is moved aside first, never
// deleted before its replacement is in place); retention keeps the last k and the best.
import { cp, mkdir, readdir, readFile, rename, rm, stat, statfs } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import * as k from "../core/index.js";
import type { LanguageModel, Params } from "../models/language-model.js";
import { checkFinite, configJson, namedTensors, paramsFromTensors } from "../models/pretrained.js";
import { decodeSafetensors, writeSafetensors, type NamedTensor } from "../models/safetensors.js";
import {
  checkDirectory,
  CHECKSUMS_FILE,
  CorruptFileError,
  readChecked,
  type DirectoryCheck,
  readChecksums,
  writeChecksums,
} from "../models/file-digests.js";
import { writeJsonAtomic } from "../io/atomic-file.js";
import { AdamW } from "../optim/adamw.js";
import type { Optimizer, OptimizerState } from "../optim/optimizer.js";
import type { LossScaleState } from "../optim/precision.js";
import { isCausalConfig } from "../models/registry.js";
import { useCausalTemplate } from "../text/index.js";
import { optimizerFile, readOptimizerFile } from "./optimizer-file.js";

/** A checkpoint's trainer_state.json: the step, the epoch, the data position, the seed, the best metric, the log. */
export interface TrainerStateJson {
  global_step: number;
  epoch: number;
  /** The data pipeline's position (restores the exact next batch). */
  data_state: unknown;
  seed: number;
  best_metric?: number;
  best_model_checkpoint?: string;
  log_history: Record<string, number>[];
  /** Training seconds spent up to this checkpoint (what TrainerOptions.maxTime counts). */
  train_seconds?: number;
  [extra: string]: unknown;
}

const TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"];

/**
 * Copies the tokenizer's files that `fromDir` holds into `toDir` (a causal LM's get the bos-only template,
 * see useCausalTemplate); returns their names.
 */
export async function copyTokenizerFiles(fromDir: string, toDir: string, config: { model_type: unknown }): Promise<string[]> {
  const copied: string[] = [];
  for (const f of TOKENIZER_FILES) {
    try {
      await cp(join(fromDir, f), join(toDir, f));
      copied.push(f);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
  if (copied.includes("tokenizer.json") && isCausalConfig(config)) await useCausalTemplate(toDir);
  return copied;
}

/** The state of checkpoints written without an optimizer named: AdamW's (its settings do not shape the state). */
const ADAMW_LAYOUT = new AdamW({ learningRate: 0 });

export interface SaveCheckpointArgs {
  model: LanguageModel;
  params: Params;
  opt: OptimizerState;
  /** The optimizer's name, recorded in optimizer.safetensors (default "adamw"). */
  optimizer?: string;
  /** The loss scaler's state under "16-mixed", saved beside the optimizer's. */
  scaler?: LossScaleState;
  state: TrainerStateJson;
  tokenizerDir?: string;
}

/** The directory of the checkpoint at `step`: outputDir/checkpoint-<step>. */
export function checkpointPath(outputDir: string, step: number): string {
  return join(outputDir, `checkpoint-${step}`);
}

/** The step of a checkpoint directory's name (`checkpoint-{step}`), or undefined for any other name. */
export function checkpointStep(name: string): number | undefined {
  const m = /^checkpoint-(\d+)$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

// Where a checkpoint write is in progress: `.checkpoint-{step}.tmp-{pid}` (being written) and
// `.checkpoint-{step}.old-{pid}` (the copy a rewrite moved aside).
const BEING_WRITTEN = /^\.(checkpoint-\d+)\.tmp-\d+$/;
const MOVED_ASIDE = /^\.(checkpoint-\d+)\.old-\d+$/;

/** Whether `name` is a checkpoint directory, or one a checkpoint write left behind. */
export function isCheckpointEntry(name: string): boolean {
  return checkpointStep(name) !== undefined || BEING_WRITTEN.test(name) || MOVED_ASIDE.test(name);
}

/** Writes `{outputDir}/checkpoint-{step}` atomically and returns its path. */
export async function saveCheckpoint(outputDir: string, a: SaveCheckpointArgs): Promise<string> {
  const name = `checkpoint-${a.state.global_step}`;
  const final = checkpointPath(outputDir, a.state.global_step);
  const model = await namedTensors(a.params);
  const { tensors: optimizer, metadata } = await optimizerFile(a.optimizer ?? "adamw", a.opt, a.scaler);
  // A diverged state is never written: a checkpoint is what a later run trusts.
  for (const [file, tensors] of [
    ["model.safetensors", model],
    ["optimizer.safetensors", optimizer],
  ] as const) {
    try {
      for (const [tensor, t] of Object.entries(tensors)) checkFinite(t, tensor, file);
    } catch (e) {
      throw new Error(`not writing ${name}: ${(e as Error).message}`);
    }
  }
  const tmp = join(outputDir, `.${name}.tmp-${process.pid}`);
  await rm(tmp, { recursive: true, force: true });
  try {
    await mkdir(tmp, { recursive: true });
    await writeSafetensors(join(tmp, "model.safetensors"), model, { format: "pt" });
    await writeSafetensors(join(tmp, "optimizer.safetensors"), optimizer, metadata);
    await writeJsonAtomic(join(tmp, "config.json"), configJson(a.model.config));
    // `checksums` tells a later load that checksums.json belongs here, so a deleted one is noticed too.
    await writeJsonAtomic(join(tmp, "trainer_state.json"), { ...a.state, checksums: CHECKSUMS_FILE });
    if (a.tokenizerDir) await copyTokenizerFiles(a.tokenizerDir, tmp, a.model.config);
    // Last: the digests of everything above, which resuming checks before it trusts a byte.
    await writeChecksums(tmp, (await readdir(tmp)).sort());
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    if ((e as NodeJS.ErrnoException).code === "ENOSPC") throw await diskFullError(outputDir, name, [model, optimizer]);
    throw e;
  }
  await replaceDirectory(tmp, final);
  return final;
}

/**
 * Puts the finished directory `tmp` at `final`. A directory cannot be renamed over a non-empty one, so
 * an existing `final` is first moved aside (`.checkpoint-N.old-PID`) and deleted only once the new one
 * is in place: a kill at any point leaves one whole checkpoint, under its name or aside, and
 * `cleanCheckpointLeftovers` puts an aside one back.
 */
async function replaceDirectory(tmp: string, final: string): Promise<void> {
  const parent = dirname(final),
    name = basename(final);
  const aside = join(parent, `.${name}.old-${process.pid}`);
  let moved = false;
  try {
    await rename(final, aside);
    moved = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  await rename(tmp, final);
  if (moved) await rm(aside, { recursive: true, force: true });
}

/**
 * Tidies what killed or failed checkpoint writes left in outputDir: temporary directories are removed,
 * and a checkpoint moved aside for a rewrite that never finished is put back. Returns one line per action.
 */
export async function cleanCheckpointLeftovers(outputDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(outputDir);
  } catch {
    return [];
  }
  const done: string[] = [];
  for (const n of names.sort()) {
    const tmp = BEING_WRITTEN.exec(n);
    if (tmp) {
      await rm(join(outputDir, n), { recursive: true, force: true });
      done.push(`removed ${n}, an unfinished write of ${tmp[1]}`);
      continue;
    }
    const old = MOVED_ASIDE.exec(n);
    if (!old) continue;
    if (names.includes(old[1]!)) {
      await rm(join(outputDir, n), { recursive: true, force: true });
      done.push(`removed ${n}, the replaced copy of ${old[1]}`);
    } else {
      await rename(join(outputDir, n), join(outputDir, old[1]!));
      done.push(`restored ${old[1]} from ${n} (its rewrite was interrupted)`);
    }
  }
  return done;
}

async function diskFullError(outputDir: string, name: string, files: Record<string, NamedTensor>[]): Promise<Error> {
  const needed = files.flatMap((f) => Object.values(f)).reduce((n, t) => n + t.data.byteLength, 0);
  const mib = (n: number) => (n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MiB` : `${(n / 2 ** 10).toFixed(1)} KiB`);
  let free = "";
  try {
    const s = await statfs(outputDir);
    free = ` and ${mib(Number(s.bavail) * Number(s.bsize))} are free`;
  } catch {
    // the free space is a hint only
  }
  const previous = (await listCheckpoints(outputDir)).at(-1);
  return new Error(
    `no space left on the device to write ${name} in ${outputDir}: it needs about ${mib(needed)}${free}. ` +
      `Free up space there (or pass --keep-checkpoints 1), then continue with --resume` +
      (previous ? ` from ${basename(previous.path)}, the newest complete checkpoint` : "") +
      "; nothing partial was left behind.",
  );
}

/** Checkpoint directories under outputDir, oldest first. */
export async function listCheckpoints(outputDir: string): Promise<{ path: string; step: number }[]> {
  let names: string[];
  try {
    names = await readdir(outputDir);
  } catch {
    return [];
  }
  const out: { path: string; step: number }[] = [];
  for (const n of names) {
    const step = checkpointStep(n);
    if (step === undefined) continue;
    const path = join(outputDir, n);
    try {
      await stat(join(path, "trainer_state.json"));
      out.push({ path, step });
    } catch {
      // not a complete checkpoint
    }
  }
  return out.sort((a, b) => a.step - b.step);
}

/** Deletes all but the newest `keepLast` checkpoints, never the one named in `keep`. */
export async function pruneCheckpoints(outputDir: string, keepLast: number, keep?: string): Promise<void> {
  const all = await listCheckpoints(outputDir);
  const doomed = all.slice(0, Math.max(0, all.length - keepLast)).filter((c) => c.path !== keep);
  for (const c of doomed) await rm(c.path, { recursive: true, force: true });
}

/** What loadCheckpoint read: parameters, optimizer state, loss scale and trainer state. */
export interface LoadedCheckpoint {
  params: Params;
  opt: OptimizerState;
  /** Present when the checkpoint was written with dynamic loss scaling. */
  scaler?: LossScaleState;
  state: TrainerStateJson;
}

/**
 * A checkpoint's parameters, trainer state, and the state of `optimizer` (whose init gives the state's
 * layout; default AdamW's): a checkpoint of another optimizer is refused, naming it.
 */
export async function loadCheckpoint(
  path: string,
  model: LanguageModel,
  device?: k.Device,
  optimizer: Optimizer<any> = ADAMW_LAYOUT,
): Promise<LoadedCheckpoint> {
  const where = (f: string) => join(path, f);
  // Checked against the checksums.json written with the checkpoint (absent in checkpoints of older Kiln
  // releases, which load unchecked): one changed byte refuses it, naming the file and tensor.
  const remedy = damagedCheckpointRemedy(path);
  const manifest = await readChecksums(path, remedy);
  const read = (f: string) => readChecked(path, f, manifest, remedy);
  let state: TrainerStateJson;
  try {
    state = JSON.parse((await read("trainer_state.json")).toString("utf8"));
  } catch (e) {
    if (e instanceof CorruptFileError) throw e;
    throw new Error(`cannot read ${where("trainer_state.json")}: ${(e as Error).message}`);
  }
  if (!manifest && state.checksums === CHECKSUMS_FILE)
    throw new CorruptFileError(where(CHECKSUMS_FILE), "it is missing, but trainer_state.json says it was written", remedy);
  const { tensors } = decodeSafetensors(await read("model.safetensors"), where("model.safetensors"));
  const params = paramsFromTensors(model, tensors, where("model.safetensors"), device);
  const file = decodeSafetensors(await read("optimizer.safetensors"), where("optimizer.safetensors"));
  const { opt, scaler } = readOptimizerFile(file, optimizer, params, where("optimizer.safetensors"), device);
  return { params, opt, ...(scaler ? { scaler } : {}), state };
}

/**
 * Checks every file of a checkpoint directory against its checksums.json, offline (`kiln verify`):
 * all damaged files are listed, not only the first. A checkpoint whose trainer_state.json says it wrote
 * checksums.json but has none is damaged too.
 */
export async function checkCheckpoint(path: string): Promise<DirectoryCheck> {
  const remedy = damagedCheckpointRemedy(path);
  const check = await checkDirectory(path, remedy);
  if (!check.recorded) {
    let state: Record<string, unknown> | undefined;
    try {
      state = JSON.parse(await readFile(join(path, "trainer_state.json"), "utf8"));
    } catch {
      // unreadable: reported as an unchecked checkpoint, and loading it says why
    }
    if (state?.checksums === CHECKSUMS_FILE)
      check.damaged.push(
        new CorruptFileError(join(path, CHECKSUMS_FILE), "it is missing, but trainer_state.json says it was written", remedy),
      );
  }
  return check;
}

/** What to do about a checkpoint whose files changed after they were written. */
function damagedCheckpointRemedy(path: string): string {
  return (
    `The checkpoint cannot be trusted: resume from an earlier one (move ${basename(path)} out of ${dirname(path)}, ` +
    `and --resume continues from the newest whole checkpoint), or restore it from a copy`
  );
}

export interface ResumePoint extends LoadedCheckpoint {
  path: string;
  /** Newer checkpoints that could not be loaded, with why. */
  skipped: { path: string; reason: string }[];
}

/**
 * The newest checkpoint in outputDir that loads whole, falling back past damaged ones (saying why each
 * was skipped). Undefined when the directory holds no checkpoint; an error when none of them loads.
 */
export async function loadNewestCheckpoint(
  outputDir: string,
  model: LanguageModel,
  device?: k.Device,
  optimizer: Optimizer<any> = ADAMW_LAYOUT,
): Promise<ResumePoint | undefined> {
  const all = (await listCheckpoints(outputDir)).reverse();
  const skipped: ResumePoint["skipped"] = [];
  for (const { path } of all) {
    try {
      return { path, skipped, ...(await loadCheckpoint(path, model, device, optimizer)) };
    } catch (e) {
      skipped.push({ path, reason: (e as Error).message });
    }
  }
  if (skipped.length === 0) return undefined;
  throw new Error(
    `none of the ${skipped.length} checkpoints in ${outputDir} can be loaded:\n` +
      skipped.map((s) => `  ${basename(s.path)}: ${s.reason}`).join("\n"),
  );
}
