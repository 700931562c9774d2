// An offline check of a data prepare output (`kiln verify`): every shard its prepare.json lists is read
// through (record framing and checksums, record count) and held to the size and SHA-256 recorded there.
import { checkShard } from "../shard-check.js";
import { joinPath, storageFor } from "../storage/index.js";
import { checkPreparedDir, readManifest } from "./manifest.js";

export interface PreparedDirCheck {
  /** Shards read through and found to be the ones prepare wrote. */
  ok: string[];
  /** What is wrong, one error per shard (or one for the directory as a whole). */
  damaged: Error[];
  /** Whether prepare.json records shard digests (older releases did not: then only the checksums are checked). */
  recorded: boolean;
}

/** Checks the split directory `dir` (holding prepare.json) without stopping at the first damaged shard. */
export async function checkPreparedShards(dir: string): Promise<PreparedDirCheck> {
  const manifest = await readManifest(dir);
  const shards = (await storageFor(dir).glob(joinPath(dir, "*.tfrecord*"))).sort();
  const out: PreparedDirCheck = { ok: [], damaged: [], recorded: manifest?.shards !== undefined };
  try {
    // The set of shards (none extra, missing or repeated) and the run having finished.
    await checkPreparedDir(dir, shards.length > 0 ? shards : undefined);
  } catch (e) {
    out.damaged.push(e as Error);
  }
  const compression = manifest?.settings.compression === "gzip" ? ("gzip" as const) : undefined;
  for (const shard of shards) {
    const name = shard.slice(shard.lastIndexOf("/") + 1);
    const expect = manifest?.shards && Object.hasOwn(manifest.shards, name) ? manifest.shards[name] : undefined;
    try {
      await checkShard(shard, { ...(compression ? { compression } : {}), ...(expect ? { expect } : {}) });
      out.ok.push(name);
    } catch (e) {
      out.damaged.push(e as Error);
    }
  }
  return out;
}
