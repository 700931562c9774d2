// gs:// paths in flags. Inputs that commands read as local directories (a tokenizer, a model) are
// downloaded into a local stand-in first; outputs are written locally, then uploaded. Every gs:// path
// is probed before any work, so missing credentials, no network or a missing bucket fail at once, in
// one line that names the flag.
import { rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { isGcsPath, remoteDirHasFiles } from "../data/storage/index.js";
import { downloadFiles, listLocalFiles, listRemoteFiles, localStandIn, uploadFiles } from "../data/storage/transfer.js";
import { UsageError } from "./args.js";

/** Runs a gs:// request for `--flag`, its failure one line naming the flag. */
async function forFlag<T>(flag: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (e) {
    throw new Error(`--${flag} ${(e as Error).message}`, { cause: e });
  }
}

/** Whether the gs:// directory holds objects (one request, no retries: fails at once, in one line). */
export function probeRemote(flag: string, url: string): Promise<boolean> {
  return forFlag(flag, () => remoteDirHasFiles(url));
}

/**
 * The local path of a directory input: `path` itself, or for gs:// a fresh local copy of the objects
 * directly under it (not those in subdirectories, such as checkpoints).
 */
export async function localInputDir(flag: string, path: string): Promise<string> {
  if (!isGcsPath(path)) return path;
  if (!(await probeRemote(flag, path))) throw new UsageError(`--${flag} ${path}: no objects there`);
  const local = localStandIn(path, "inputs");
  await rm(local, { recursive: true, force: true });
  await forFlag(flag, async () =>
    downloadFiles(
      path,
      (await listRemoteFiles(path)).filter((f) => !f.includes("/")),
      local,
    ),
  );
  return local;
}

/** The local path of a file input: `path` itself, or for gs:// a fresh local copy of the object. */
export async function localInputFile(flag: string, path: string): Promise<string> {
  if (!isGcsPath(path)) return path;
  const dir = path.slice(0, path.lastIndexOf("/"));
  const local = localStandIn(dir, "inputs");
  await forFlag(flag, async () => {
    await remoteDirHasFiles(dir);
    await downloadFiles(dir, [basename(path)], local);
  });
  return join(local, basename(path));
}

/** Uploads every file under `localDir` to the gs:// directory `url`. */
export async function publishDir(flag: string, localDir: string, url: string): Promise<string[]> {
  const files = await listLocalFiles(localDir);
  await forFlag(flag, () => uploadFiles(localDir, files, url));
  return files;
}

/** Refuses a gs:// path where the command needs a local one, saying what to do instead. */
export function refuseGcs(flag: string, path: string | undefined, what: string): void {
  if (path !== undefined && isGcsPath(path))
    throw new UsageError(`--${flag} ${path}: ${what} must be local; copy it here first (gsutil cp ${path} .) and pass the local path`);
}
