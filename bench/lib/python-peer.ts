// Where the Python peers live: the repository root and the Python of the project's environment (.venv,
// or KILN_VENV, relative to the root unless absolute), as scripts/setup-python.sh makes it.
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (benchmarks run from dist/bench/). */
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** The project environment's python executable. */
export function venvPython(): string {
  const venv = process.env.KILN_VENV ?? ".venv";
  return join(isAbsolute(venv) ? venv : join(repoRoot, venv), "bin", "python");
}
