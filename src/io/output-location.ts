// Checks where a command will write before it does any work, so that a bad output path fails at once
// and not hours in. Virtual file systems (/proc, /sys, /dev) are refused outright: Node's recursive
// mkdir loops forever under /proc. Otherwise the path must be a directory or not exist yet, and the
// nearest directory that exists must take a new file (a probe file is created there and removed).
import { closeSync, openSync, realpathSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const VIRTUAL = ["/proc", "/sys", "/dev"];

function under(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

/**
 * What is wrong with `path` as an output directory, in a few words for an error message, or undefined
 * when commands can write there. Nothing is left behind.
 */
export function outputLocationProblem(path: string): string | undefined {
  if (path === "") return "an empty path";
  const abs = resolve(path);
  let existing = abs;
  let stats;
  for (;;) {
    const root = VIRTUAL.find((r) => under(existing, r));
    if (root) return `it is under ${root}, a virtual file system that holds no files; write to a directory on a disk`;
    try {
      stats = statSync(existing);
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOTDIR") return `${nearestFile(existing)} is a file, so no directory can be made under it`;
      if (code !== "ENOENT") return `${existing} cannot be examined (${code ?? (e as Error).message})`;
      const parent = dirname(existing);
      if (parent === existing) return "no part of it exists";
      existing = parent;
    }
  }
  // The directory that exists may be a link into a virtual file system.
  const real = realpathSync(existing);
  const root = VIRTUAL.find((r) => under(real, r));
  if (root) return `it leads to ${real}, under ${root}, a virtual file system that holds no files; write to a directory on a disk`;
  if (!stats.isDirectory())
    return existing === abs ? "it is a file, not a directory" : `${existing} is a file, so no directory can be made under it`;
  const probe = join(existing, `.kiln-write-probe-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    closeSync(openSync(probe, "wx"));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === "EACCES" || code === "EPERM"
        ? "permission denied"
        : code === "EROFS"
          ? "a read-only file system"
          : (code ?? (e as Error).message);
    return `${existing} does not take new files (${why})`;
  }
  rmSync(probe, { force: true });
  return undefined;
}

/** The first ancestor of `path` that is a file (for ENOTDIR). */
function nearestFile(path: string): string {
  let p = path;
  for (;;) {
    try {
      if (!statSync(p).isDirectory()) return p;
    } catch {
      // missing or under a file: look higher
    }
    const parent = dirname(p);
    if (parent === p) return path;
    p = parent;
  }
}
