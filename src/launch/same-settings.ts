// Every process of a run must be started with the same model, data and flags: a rank with another learning
// rate or another shard list would train a different model and the all-reduce would mix them silently.
// Each rank puts a digest per setting; each compares every rank's with rank 0's, and a mismatch aborts the
// run naming the rank and the settings that differ.
import { createHash } from "node:crypto";
import type { StoreClient } from "./store-client.js";
import { StoreError } from "./store-client.js";

/** JSON with object keys sorted, so that equal settings give equal text whatever the order they were built in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

function digests(settings: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(settings).sort())
    if (settings[k] !== undefined) out[k] = createHash("sha256").update(canonical(settings[k])).digest("hex").slice(0, 16);
  return out;
}

/** Options of checkSameSettings: the check's name and how long to wait for every rank. */
export interface SameSettingsOptions {
  /** Names this check (default "settings"), so a run can check more than one set. */
  name?: string;
  /** How long to wait for every rank's digests (default 120 000 ms); a rank missing then is named. */
  timeoutMs?: number;
}

/**
 * Resolves when all `worldSize` ranks were given the same `settings` (compared by digest, key by key);
 * otherwise aborts the run and throws with "rank R's settings differ from rank 0's: key, key".
 */
export async function checkSameSettings(
  store: StoreClient,
  rank: number,
  worldSize: number,
  settings: Record<string, unknown>,
  options: SameSettingsOptions = {},
): Promise<void> {
  const prefix = `kiln/${options.name ?? "settings"}/`;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const mine = digests(settings);
  await store.put(`${prefix}${rank}`, JSON.stringify(mine));
  const reference = rank === 0 ? mine : await read(store, `${prefix}0`, 0, timeoutMs);
  // Every rank compares all of them, so each stops with the same first mismatch (the lowest rank).
  for (let r = 1; r < worldSize; r++) {
    const theirs = r === rank ? mine : await read(store, `${prefix}${r}`, r, timeoutMs);
    const keys = [...new Set([...Object.keys(reference), ...Object.keys(theirs)])].sort();
    const differ = keys.filter((k) => reference[k] !== theirs[k]);
    if (differ.length) {
      const detail = differ
        .map((k) => (k in theirs ? (k in reference ? k : `${k} (only rank ${r} has it)`) : `${k} (rank ${r} lacks it)`))
        .join(", ");
      const cause = await store.abort(
        r,
        `its settings differ from rank 0's: ${detail} (start every process with the same model, data and flags)`,
      );
      throw new StoreError("ABORTED", cause);
    }
  }
}

async function read(store: StoreClient, key: string, from: number, timeoutMs: number): Promise<Record<string, string>> {
  return JSON.parse((await store.get(key, { timeoutMs, from })).toString("utf8")) as Record<string, string>;
}
