// Building and loading the generated pointwise kernels (pointwise-codegen.ts): the system's C compiler
// builds a shared library for this CPU (-march=native), as torch.compile's inductor does, cached under
// $KILN_CACHE_DIR (else the system's temporary directory) by a hash of the source, the driver it
// includes, the compiler and the CPU, so a program compiles once per machine. koffi loads it and its
// kiln_register_pointwise adds the kernels to an InferenceSession's options.
//
// Where there is no C compiler, or not x86-64 Linux (the kernels' exp and erf come from glibc's vector
// math library), or KILN_POINTWISE_KERNELS=0, programs are lowered without them: the same values from
// ONNX Runtime's own kernels, one pass per node.
import "../native-stacks.js"; // before koffi loads any library
import koffi from "koffi";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Ptr } from "./ort-api.js";
import type { PointwiseGroup } from "./pointwise-groups.js";
import type { RowKernel } from "./row-kernels.js";
import { librarySource } from "./pointwise-codegen.js";

/** The driver every generated library includes (shipped with the package, beside dist/). */
const DRIVER = fileURLToPath(new URL("../../../../native/pointwise-kernels.h", import.meta.url));

const FLAGS = ["-O3", "-march=native", "-fno-math-errno", "-fno-trapping-math", "-fPIC", "-shared"];

interface Compiler {
  readonly command: string;
  readonly version: string;
}

let compiler: Compiler | null | undefined;
let driverText: string | undefined;
let why: string | undefined;

/** The C compiler the kernels are built with ($CC, else cc), or null where pointwise kernels are off (whyNoPointwiseKernels says why). */
export function pointwiseCompiler(): Compiler | null {
  if (compiler !== undefined) return compiler;
  const setting = process.env.KILN_POINTWISE_KERNELS?.trim();
  if (setting !== undefined && setting !== "" && setting !== "0" && setting !== "1")
    throw new Error(`KILN_POINTWISE_KERNELS must be 0 (off) or 1 (on where a C compiler is found), got "${setting}"`);
  if (setting === "0") why = "KILN_POINTWISE_KERNELS=0";
  else if (process.platform !== "linux" || process.arch !== "x64")
    why = `they are built for x86-64 Linux only, not ${process.platform}-${process.arch}`;
  else if (!existsSync(DRIVER)) why = `Kiln's package lacks ${DRIVER} (reinstall the package)`;
  if (why) return (compiler = null);
  const command = process.env.CC?.trim() || "cc";
  const probe = spawnSync(command, ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    why = `no C compiler ran as \`${command} --version\` (install gcc, or set CC)`;
    return (compiler = null);
  }
  return (compiler = { command, version: probe.stdout.split("\n")[0]! });
}

/** Turns pointwise kernels off for the rest of the process, saying why once (a library could not be built). */
export function disablePointwiseKernels(reason: string): void {
  if (compiler === null) return;
  compiler = null;
  why = reason;
  process.emitWarning(`Kiln's pointwise kernels are off for this process, and programs run slower: ${reason}`, {
    code: "KILN_POINTWISE_KERNELS",
  });
}

/** Why pointwise kernels are off in this process (undefined where they are on). */
export function whyNoPointwiseKernels(): string | undefined {
  pointwiseCompiler();
  return why;
}

/** A loaded library of kernels. */
export interface PointwiseLibrary {
  readonly path: string;
  /** Adds the kernels to session options (ONNX Runtime's OrtSessionOptions), given OrtGetApiBase(). */
  register(options: Ptr, apiBase: Ptr): Ptr | null;
}

/** Loaded libraries stay referenced: koffi would unload one whose handle is collected, and sessions run its code. */
const loaded = new Map<string, PointwiseLibrary>();
const handles: object[] = [];

function cacheDir(): string {
  return join(process.env.KILN_CACHE_DIR ?? join(tmpdir(), "kiln"), "pointwise-kernels");
}

/** The library computing `groups` and `rowKernels`, built on first use (or found in the cache) and loaded. */
export function pointwiseLibrary(groups: readonly PointwiseGroup[], rowKernels: readonly RowKernel[] = []): PointwiseLibrary {
  const cc = pointwiseCompiler();
  if (!cc) throw new Error(`internal: pointwise kernels are off (${why})`);
  const source = librarySource(groups, rowKernels, DRIVER);
  // The driver's text too: a library built with an older driver (another version of Kiln) is not this one.
  driverText ??= readFileSync(DRIVER, "utf8");
  const hash = createHash("sha256")
    .update([cc.command, cc.version, FLAGS.join(" "), cpus()[0]?.model ?? "", driverText, source].join("\0"))
    .digest("hex")
    .slice(0, 32);
  const known = loaded.get(hash);
  if (known) return known;
  const dir = cacheDir();
  const path = join(dir, `${hash}.so`);
  if (!existsSync(path)) build(cc, source, dir, path);
  const lib = koffi.load(path);
  const register = lib.func("void *kiln_register_pointwise(void *options, void *base)");
  const library: PointwiseLibrary = { path, register: (options, base) => register(options, base) as Ptr | null };
  loaded.set(hash, library);
  handles.push(lib);
  return library;
}

/** Compiles `source` into `path`: written beside it under a unique name, then renamed (atomic), so a reader never sees half a library. */
function build(cc: Compiler, source: string, dir: string, path: string): void {
  mkdirSync(dir, { recursive: true });
  const stem = `${path}.${process.pid}.${Date.now()}`;
  const c = `${stem}.c`,
    so = `${stem}.so`;
  writeFileSync(c, source);
  try {
    const r = spawnSync(cc.command, [...FLAGS, "-o", so, c, "-lmvec", "-lm"], { encoding: "utf8" });
    if (r.error || r.status !== 0)
      throw new Error(
        `building pointwise kernels with ${cc.command} failed (${r.error?.message ?? `exit ${r.status}`}): ` +
          `${(r.stderr ?? "").slice(0, 2000)}; set KILN_POINTWISE_KERNELS=0 to run without them`,
      );
    renameSync(so, path);
  } finally {
    rmSync(c, { force: true });
    rmSync(so, { force: true });
  }
}
