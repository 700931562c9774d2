// Copies between a local directory and a gs:// prefix through the storage layer: the uploads of
// `kiln train --push-to` and of gs:// outputs, and the downloads of gs:// inputs that are read as
// local directories (a tokenizer, a model, a checkpoint to resume from).
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { joinPath, storageFor } from "./index.js";
import { parseGcsPath } from "./gcs.js";

/** Files under `dir` (recursively), as paths relative to it with "/" separators, sorted. */
export async function listLocalFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      // Temporary files of writes in progress (".name.tmp-…", "name.tmp-…") are not outputs.
      else if (e.isFile() && !/\.tmp-\d+/.test(e.name)) out.push(relative(dir, p).split(sep).join("/"));
    }
  };
  await walk(dir);
  return out.sort();
}

/**
 * Uploads `files` (relative to `localDir`, in this order) to `remote`/…, each object written whole.
 * Returns the bytes sent.
 */
export async function uploadFiles(localDir: string, files: readonly string[], remote: string): Promise<number> {
  let bytes = 0;
  for (const f of files) {
    const data = await readFile(join(localDir, ...f.split("/")));
    await storageFor(remote).writeAtomic(joinPath(remote, f), data);
    bytes += data.length;
  }
  return bytes;
}

/** Object paths under the gs:// directory `remote`, relative to it, sorted. */
export async function listRemoteFiles(remote: string): Promise<string[]> {
  const base = remote.endsWith("/") ? remote : `${remote}/`;
  return (await storageFor(base).glob(`${base}**`)).map((p) => p.slice(base.length)).sort();
}

/** Downloads `files` (relative to the gs:// directory `remote`) into `localDir`. */
export async function downloadFiles(remote: string, files: readonly string[], localDir: string): Promise<void> {
  for (const f of files) {
    const data = await storageFor(remote).readAll(joinPath(remote, f));
    await storageFor(localDir).writeAtomic(join(localDir, ...f.split("/")), data);
  }
}

/**
 * A local directory that stands for the gs:// path `url`, the same for the same URL in every run:
 * under $KILN_CACHE_DIR, else the system's temporary directory, in `purpose`/bucket/object.
 */
export function localStandIn(url: string, purpose: string): string {
  const { bucket, object } = parseGcsPath(url);
  const parts = object.split("/").filter((p) => p !== "" && p !== "." && p !== "..");
  return join(process.env.KILN_CACHE_DIR ?? join(tmpdir(), "kiln"), purpose, bucket, ...parts);
}
