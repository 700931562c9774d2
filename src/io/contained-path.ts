// Paths a file names, held inside the directory that holds the file. A model directory is data someone
// else may have written: its shard index or config must not make Kiln open `/etc/passwd` or
// `../../secrets`, whether by spelling (absolute paths, `..`) or by a symlink that points out.
import { realpath } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";

/** A name that points outside the directory it was read from. */
export class PathEscapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PathEscapeError";
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * The Hugging Face hub cache keeps a snapshot's files as symlinks to `../../blobs/<hash>`: for a
 * directory `<repo>/snapshots/<revision>` those links may end anywhere under `<repo>`, nowhere else.
 */
function allowedRoot(realDir: string): string {
  const parts = realDir.split(sep);
  return parts.length >= 3 && parts.at(-2) === "snapshots" ? parts.slice(0, -2).join(sep) : realDir;
}

/**
 * `dir/name`, after checking that `name` (as written in `source`, the file that names it) is a relative
 * path that stays in `dir`, and that where it resolves to (symlinks followed) stays there too. A name
 * that does not exist yet passes (the read that follows reports it missing). Nothing is opened.
 */
export async function fileInside(dir: string, name: string, source: string): Promise<string> {
  const refuse = (why: string): never => {
    throw new PathEscapeError(
      `${source} names ${JSON.stringify(name)}, which ${why}: a model directory's files must name files inside it (${dir}). ` +
        `Nothing was opened; fix or remove the entry, or copy the files it means into the directory`,
    );
  };
  if (typeof name !== "string" || name === "") return refuse("is not a file name");
  if (name.includes("\0")) return refuse("holds a NUL character");
  if (isAbsolute(name) || /^[a-zA-Z]:|^[\\/]/.test(name)) return refuse("is an absolute path");
  if (name.split(/[\\/]/).includes("..")) return refuse("climbs out with ..");
  const path = join(dir, name);
  let real: string, realDir: string;
  try {
    [realDir, real] = await Promise.all([realpath(dir), realpath(path)]);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return path;
    throw e;
  }
  if (!inside(allowedRoot(realDir), real)) refuse(`is a symlink to ${real}, outside the directory`);
  return path;
}
