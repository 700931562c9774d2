// Checkpoints: `checkpoint-{step}/` directories a Python user recognizes (config.json,
// model.safetensors, tokenizer files) plus what resuming needs (optimizer.safetensors,
// trainer_state.json). Each is written under a temporary name and renamed into place, so a killed run
// leaves only whole checkpoints; retention keeps the last k and the best.
import { cp, mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import * as k from "../core/index.js";
import type { MaskedLanguageModel, Params } from "../models/masked-lm.js";
import { configJson, namedTensors, paramsFromTensors } from "../models/pretrained.js";
import { readSafetensors, writeSafetensors, type NamedTensor } from "../models/safetensors.js";
import { writeJsonAtomic } from "../io/atomic-file.js";
import type { AdamWState } from "../optim/adamw.js";

export interface TrainerStateJson {
  global_step: number;
  epoch: number;
  /** The data pipeline's position (restores the exact next batch). */
  data_state: unknown;
  seed: number;
  best_metric?: number;
  best_model_checkpoint?: string;
  log_history: Record<string, number>[];
  [extra: string]: unknown;
}

const TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"];

export async function copyTokenizerFiles(fromDir: string, toDir: string): Promise<void> {
  for (const f of TOKENIZER_FILES) {
    try {
      await cp(join(fromDir, f), join(toDir, f));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
  }
}

async function optimizerTensors(opt: AdamWState): Promise<Record<string, NamedTensor>> {
  const m = await namedTensors(opt.m),
    v = await namedTensors(opt.v);
  const out: Record<string, NamedTensor> = {};
  for (const [n, t] of Object.entries(m)) out[`exp_avg.${n}`] = t;
  for (const [n, t] of Object.entries(v)) out[`exp_avg_sq.${n}`] = t;
  out.step = { dtype: "f32", shape: [], data: await opt.step.astype("f32").data() };
  return out;
}

export interface SaveCheckpointArgs {
  model: MaskedLanguageModel;
  params: Params;
  opt: AdamWState;
  state: TrainerStateJson;
  tokenizerDir?: string;
}

export function checkpointPath(outputDir: string, step: number): string {
  return join(outputDir, `checkpoint-${step}`);
}

/** Writes `{outputDir}/checkpoint-{step}` atomically and returns its path. */
export async function saveCheckpoint(outputDir: string, a: SaveCheckpointArgs): Promise<string> {
  const name = `checkpoint-${a.state.global_step}`;
  const final = checkpointPath(outputDir, a.state.global_step);
  const tmp = join(outputDir, `.${name}.tmp-${process.pid}`);
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  await writeSafetensors(join(tmp, "model.safetensors"), await namedTensors(a.params), { format: "pt" });
  await writeSafetensors(join(tmp, "optimizer.safetensors"), await optimizerTensors(a.opt));
  await writeJsonAtomic(join(tmp, "config.json"), configJson(a.model.config));
  await writeJsonAtomic(join(tmp, "trainer_state.json"), a.state);
  if (a.tokenizerDir) await copyTokenizerFiles(a.tokenizerDir, tmp);
  await rm(final, { recursive: true, force: true });
  await rename(tmp, final);
  return final;
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
    const m = /^checkpoint-(\d+)$/.exec(n);
    if (!m) continue;
    const path = join(outputDir, n);
    try {
      await stat(join(path, "trainer_state.json"));
      out.push({ path, step: Number(m[1]) });
    } catch {
      // not a complete checkpoint
    }
  }
  return out.sort((a, b) => a.step - b.step);
}

export async function latestCheckpoint(outputDir: string): Promise<string | undefined> {
  return (await listCheckpoints(outputDir)).at(-1)?.path;
}

/** Deletes all but the newest `keepLast` checkpoints, never the one named in `keep`. */
export async function pruneCheckpoints(outputDir: string, keepLast: number, keep?: string): Promise<void> {
  const all = await listCheckpoints(outputDir);
  const doomed = all.slice(0, Math.max(0, all.length - keepLast)).filter((c) => c.path !== keep);
  for (const c of doomed) await rm(c.path, { recursive: true, force: true });
}

export interface LoadedCheckpoint {
  params: Params;
  opt: AdamWState;
  state: TrainerStateJson;
}

export async function loadCheckpoint(path: string, model: MaskedLanguageModel, device?: k.Device): Promise<LoadedCheckpoint> {
  const where = (f: string) => join(path, f);
  const { tensors } = await readSafetensors(where("model.safetensors"));
  const params = paramsFromTensors(model, tensors, where("model.safetensors"), device);
  const optT = (await readSafetensors(where("optimizer.safetensors"))).tensors;
  const pick = (prefix: string) =>
    Object.fromEntries(
      Object.entries(optT)
        .filter(([n]) => n.startsWith(prefix))
        .map(([n, t]) => [n.slice(prefix.length), t]),
    );
  const m = paramsFromTensors(model, pick("exp_avg."), where("optimizer.safetensors"), device);
  const v = paramsFromTensors(model, pick("exp_avg_sq."), where("optimizer.safetensors"), device);
  const stepT = optT.step;
  if (!stepT) throw new Error(`${where("optimizer.safetensors")}: missing "step"`);
  const step = k.array(stepT.data, { shape: [], dtype: "f32", device });
  let state: TrainerStateJson;
  try {
    state = JSON.parse(await readFile(where("trainer_state.json"), "utf8"));
  } catch (e) {
    throw new Error(`cannot read ${where("trainer_state.json")}: ${(e as Error).message}`);
  }
  return { params, opt: { step, m, v }, state };
}
