// Temporary directories for tests, removed when the process that made them exits. `node --test` runs each
// test file in a process of its own, so a test run leaves nothing behind in the system's temporary directory,
// whether its tests pass or fail (a test that fails part-way skips its own clean-up).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

function removeAll(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
}

/** A new, empty directory under the system's temporary directory, named `prefix` and a random suffix, removed at exit. */
export function tempDir(prefix: string): string {
  if (made.length === 0) process.once("exit", removeAll);
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
