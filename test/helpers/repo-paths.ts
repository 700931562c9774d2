// Paths into the source tree from compiled tests (which run from dist/): golden files live beside
// the test sources, not in the build output.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: the nearest directory above this file holding package.json. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("no package.json above the test files");
    dir = up;
  }
  return dir;
}
