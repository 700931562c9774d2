// Picks the storage back end for a path: `gs://…` goes to Google Cloud Storage, anything else is local.
import { LocalStorage } from "./local.js";
import { GcsStorage } from "./gcs.js";
import type { Storage } from "./types.js";

export type { AtomicWriter, ReadRange, Storage } from "./types.js";

const local = new LocalStorage();
let gcs: GcsStorage | undefined;

export function isGcsPath(path: string): boolean {
  return path.startsWith("gs://");
}

export function storageFor(path: string): Storage {
  if (isGcsPath(path)) return (gcs ??= new GcsStorage());
  return local;
}

/** Joins path segments with `/` (for both local paths and gs:// URLs), without doubling slashes. */
export function joinPath(base: string, ...parts: string[]): string {
  let out = base;
  for (const p of parts) out = out.endsWith("/") ? out + p : `${out}/${p}`;
  return out;
}
