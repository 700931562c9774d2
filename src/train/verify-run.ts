// `kiln verify DIR`, offline: every file of a training run's directory held to the digests recorded when
// it was written. The final model and each checkpoint against their checksums.json, and data prepare
// outputs (DIR itself or its split folders) against prepare.json's shard digests.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { CHECKSUMS_FILE, checkDirectory } from "../models/file-digests.js";
import { damagedModelRemedy } from "../models/pretrained.js";
import { checkPreparedShards } from "../data/prepare/verify-shards.js";
import { MANIFEST } from "../data/prepare/manifest.js";
import { checkCheckpoint, checkpointStep } from "./checkpoint.js";

export interface VerifiedPart {
  /** What was checked: "model", "checkpoint-4", "data train", relative to the directory given. */
  name: string;
  /** Files found whole. */
  ok: number;
  /** One message per damaged or missing file. */
  damaged: string[];
  /** Set when nothing was recorded to check against (written by an older release or another tool). */
  unchecked?: string;
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

/** Checks every part of `dir` that records digests; an empty result means nothing there could be checked. */
export async function verifyRunDir(dir: string): Promise<VerifiedPart[]> {
  if (!(await isDir(dir))) throw new Error(`${dir} is not a directory`);
  const parts: VerifiedPart[] = [];
  const names = (await readdir(dir)).sort();
  const steps = names.filter((n) => checkpointStep(n) !== undefined).sort((a, b) => checkpointStep(a)! - checkpointStep(b)!);
  // The directory itself: a checkpoint, a model, or a data split.
  if (names.includes("trainer_state.json")) parts.push(await checkpointPart(dir, "."));
  else if (names.includes(CHECKSUMS_FILE) || names.includes("model.safetensors")) {
    const c = await checkDirectory(dir, damagedModelRemedy(dir));
    parts.push({
      name: "model",
      ok: c.ok.length,
      damaged: c.damaged.map((e) => e.message),
      ...(c.recorded ? {} : { unchecked: `no ${CHECKSUMS_FILE} (not saved by this Kiln release)` }),
    });
  }
  for (const n of steps) parts.push(await checkpointPart(join(dir, n), n));
  const dataDirs = [
    ...(names.includes(MANIFEST) ? [{ path: dir, name: "data" }] : []),
    ...(
      await Promise.all(names.map(async (n) => ((await exists(join(dir, n, MANIFEST))) ? [{ path: join(dir, n), name: `data ${n}` }] : [])))
    ).flat(),
  ];
  for (const d of dataDirs) {
    const c = await checkPreparedShards(d.path);
    parts.push({
      name: d.name,
      ok: c.ok.length,
      damaged: c.damaged.map((e) => e.message),
      ...(c.recorded ? {} : { unchecked: `${MANIFEST} records no shard digests (record checksums only)` }),
    });
  }
  return parts;
}

async function checkpointPart(path: string, name: string): Promise<VerifiedPart> {
  const c = await checkCheckpoint(path);
  return {
    name,
    ok: c.ok.length,
    damaged: c.damaged.map((e) => e.message),
    ...(c.recorded || c.damaged.length ? {} : { unchecked: `no ${CHECKSUMS_FILE} (written before Kiln recorded digests)` }),
  };
}
