// The bundle's MANIFEST.json (every file with its size and SHA-256, the git commit, the Node version, when
// it was built, and how to use what it carries) and the size summary the builder prints.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Every file under `root`, as sorted paths relative to it with "/" separators. */
export function listFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else out.push(relative(root, path).split(sep).join("/"));
    }
  };
  walk(root);
  return out.sort();
}

function gitCommit(repo) {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repo, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: repo, encoding: "utf8" }).trim() !== "";
    return { commit, dirty };
  } catch {
    return { commit: "unknown (not a git checkout)", dirty: false };
  }
}

/** The manifest of the bundle at `out` (MANIFEST.json itself is not listed). */
export function manifest(repo, out, about) {
  const files = listFiles(out)
    .filter((f) => f !== "MANIFEST.json")
    .map((path) => {
      const bytes = readFileSync(join(out, path));
      return { path, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
    });
  return {
    format: "kiln-device-bundle/1",
    git: gitCommit(repo),
    node: process.version,
    builtAt: new Date().toISOString(),
    totalBytes: files.reduce((n, f) => n + f.bytes, 0),
    ...about,
    files,
  };
}

/** Bytes under each top-level entry of the bundle (kiln/ split into dist/ and node_modules/), largest first. */
export function sizeBreakdown(out) {
  const sizes = new Map();
  for (const path of listFiles(out)) {
    const parts = path.split("/");
    const key = parts[0] === "kiln" && parts.length > 2 ? `kiln/${parts[1]}` : parts.length > 1 ? parts[0] : path;
    sizes.set(key, (sizes.get(key) ?? 0) + statSync(join(out, path)).size);
  }
  return [...sizes].sort((a, b) => b[1] - a[1]);
}

export const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;
