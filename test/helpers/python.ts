// The project-local Python environment (.venv, made by scripts/setup-python.sh from the pinned
// python/requirements.txt) that the interop and XLA tests drive: the real transformers, tokenizers,
// safetensors, TensorFlow, TensorBoard, jax, and XLA's CPU PJRT plugins.
//
// Where it is missing, tests that need it skip with one reason; with CI=true they run and fail with
// that reason instead, since CI must never skip them.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { repoRoot } from "./repo-paths.js";

const root = repoRoot();
const venv = process.env.KILN_VENV
  ? isAbsolute(process.env.KILN_VENV)
    ? process.env.KILN_VENV
    : join(root, process.env.KILN_VENV)
  : join(root, ".venv");

/** The venv's interpreter. */
const venvPython = join(venv, "bin", "python");

/** Why the Python side cannot be used here, or undefined when it can. */
const pythonMissing: string | undefined = (() => {
  if (!existsSync(venvPython)) return `no Python environment at ${venv} (run: bash scripts/setup-python.sh)`;
  if (!existsSync(join(venv, ".kiln-requirements")))
    return `the Python environment at ${venv} is incomplete (run: bash scripts/setup-python.sh; its log: ${join(venv, ".kiln-pip.log")})`;
  return undefined;
})();

const inCi = process.env.CI === "true";

/** For `test(name, { skip: pythonSkip }, …)`: the reason outside CI; in CI never a skip. */
export const pythonSkip: string | false = pythonMissing && !inCi ? `the Python side is missing: ${pythonMissing}` : false;

/** Throws the reason when the Python side is missing (in CI, where such tests run and must fail). */
function requirePython(): string {
  if (pythonMissing) throw new Error(`the Python side is missing (CI=true: this is a failure, not a skip): ${pythonMissing}`);
  return venvPython;
}

/** The venv's interpreter, for tests that start several Python processes at once (throws where it is missing). */
export function venvPythonPath(): string {
  return requirePython();
}

/** The path of a script under test/python/. */
export function pythonScriptPath(name: string): string {
  return pythonScript(name);
}

/** The venv's site-packages directory. */
export function venvSitePackages(): string {
  const python = requirePython();
  const r = spawnSync(python, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`cannot ask ${python} for its site-packages: ${r.stderr}`);
  return r.stdout.trim();
}

export interface RunPythonOptions {
  /** Text for the script's standard input. */
  readonly input?: string;
  /** Extra environment variables. */
  readonly env?: Readonly<Record<string, string>>;
  /** Milliseconds (default 5 minutes). */
  readonly timeoutMs?: number;
}

/** The path of a script under test/python/. */
function pythonScript(name: string): string {
  return join(root, "test", "python", name);
}

/**
 * Runs test/python/<script> with the venv's Python and returns what it printed last on stdout as
 * JSON. A non-zero exit throws with the script's stderr. Hubs are off: nothing is downloaded.
 */
export function runPython<T = unknown>(script: string, args: readonly string[] = [], opts: RunPythonOptions = {}): T {
  const python = requirePython();
  const path = pythonScript(script);
  if (!existsSync(path)) throw new Error(`no Python script ${path}`);
  const r = spawnSync(python, [path, ...args], {
    encoding: "utf8",
    input: opts.input ?? "",
    timeout: opts.timeoutMs ?? 300_000,
    maxBuffer: 1 << 28,
    env: {
      ...process.env,
      HF_HUB_OFFLINE: "1",
      TRANSFORMERS_OFFLINE: "1",
      TF_CPP_MIN_LOG_LEVEL: "2",
      PYTHONDONTWRITEBYTECODE: "1",
      ...opts.env,
    },
  });
  if (r.error) throw new Error(`${script}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${script} ${args.join(" ")} exited with ${r.status ?? r.signal}:\n${r.stderr.slice(-4000)}`);
  const lines = r.stdout.trim().split("\n");
  const last = lines[lines.length - 1] ?? "";
  try {
    return JSON.parse(last) as T;
  } catch {
    throw new Error(`${script} did not end with a JSON line; stdout ends:\n${r.stdout.slice(-2000)}\nstderr:\n${r.stderr.slice(-2000)}`);
  }
}

/** The pinned version of a Python package, from python/constraints.txt (for messages and notes). */
export function pinnedVersion(pkg: string): string | undefined {
  const text = readFileSync(join(root, "python", "constraints.txt"), "utf8");
  const norm = (s: string) => s.toLowerCase().replace(/[-_.]+/g, "-");
  const line = text.split("\n").find((l) => norm(l.split("==")[0] ?? "") === norm(pkg));
  return line?.split("==")[1]?.trim();
}
