// Picks the storage back end for a path: `gs://…` goes to Google Cloud Storage, anything else is local.
import { LocalStorage } from "./local.js";
import { GcsStorage } from "./gcs.js";
import type { Storage } from "./types.js";

export type { AtomicWriter, ReadRange, Storage } from "./types.js";

const local = new LocalStorage();
let gcs: GcsStorage | undefined;

/** Whether `path` is a gs:// URL. */
export function isGcsPath(path: string): boolean {
  return path.startsWith("gs://");
}

/** The storage that holds `path`: local files, or Google Cloud Storage for gs://. */
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

export { GcsError, describeGcsError } from "./gcs-errors.js";
export {
  describeGcsRequestCounts,
  gcsRequestCounts,
  gcsRetrySettings,
  setGcsRetrySettings,
  type GcsRequestCounts,
  type GcsRetrySettings,
} from "./retry.js";

/**
 * Whether a gs:// directory holds any object, found with one listing request, so that missing
 * credentials, no network or a missing bucket fail at once (lasting failures are never retried), as a
 * GcsError of one line.
 */
export async function remoteDirHasFiles(url: string): Promise<boolean> {
  if (!isGcsPath(url)) throw new Error(`remoteDirHasFiles: ${url} is not a gs:// path`);
  return (storageFor(url) as GcsStorage).probe(url);
}
