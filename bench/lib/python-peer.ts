// Where the Python peers live: the repository root and the Python of the project's environment (.venv,
// or KILN_VENV, relative to the root unless absolute), as scripts/setup-python.sh makes it; KILN_PYTHON names
// another interpreter outright.
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (benchmarks run from dist/bench/). */
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** The project environment's python executable, or KILN_PYTHON where set (a machine's own Python with the peers' packages). */
export function venvPython(): string {
  if (process.env.KILN_PYTHON) return process.env.KILN_PYTHON;
  const venv = process.env.KILN_VENV ?? ".venv";
  return join(isAbsolute(venv) ? venv : join(repoRoot, venv), "bin", "python");
}
