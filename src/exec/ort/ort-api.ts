// The ONNX Runtime C API, called through koffi on ONNX Runtime's shared library (Kiln's package carries
// it: vendor/onnxruntime/). The official Node binding copies every output and blocks the event loop; the C
// API lets Kiln bind tensors over memory it owns and call Run from a worker thread.
//
// OrtApi is a table of function pointers that only ever grows at the end, so each function has a fixed
// slot (counted from onnxruntime_c_api.h). Every handle is a pointer, which koffi represents as a
// BigInt; BigInts cross worker boundaries as plain values, so the same handles work in every thread.
import "../native-stacks.js"; // before koffi loads any library
import koffi from "koffi";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FLUSH_DENORMALS, keepingFloatEnvironment } from "./flush-denormals.js";

export type Ptr = bigint;

/** The oldest OrtApi version that has every function used here. */
const ORT_API_VERSION = 16;

/** Slots of the functions used, in the order of `struct OrtApi`. */
const SLOT = {
  GetErrorMessage: 2,
  DisableTelemetryEvents: 6,
  CreateSessionFromArray: 8,
  Run: 9,
  CreateSessionOptions: 10,
  EnableProfiling: 14,
  SetSessionGraphOptimizationLevel: 23,
  SetIntraOpNumThreads: 24,
  SetInterOpNumThreads: 25,
  CreateTensorWithDataAsOrtValue: 49,
  CreateCpuMemoryInfo: 69,
  AllocatorFree: 76,
  GetAllocatorWithDefaultOptions: 78,
  ReleaseStatus: 93,
  ReleaseSession: 95,
  ReleaseValue: 96,
  ReleaseSessionOptions: 100,
  SessionEndProfiling: 110,
  CreateEnvWithGlobalThreadPools: 119,
  DisablePerSessionThreads: 120,
  CreateThreadingOptions: 121,
  ReleaseThreadingOptions: 122,
  AddSessionConfigEntry: 130,
  SetGlobalIntraOpNumThreads: 147,
  SetGlobalInterOpNumThreads: 148,
  SetGlobalDenormalAsZero: 155,
} as const;

/**
 * Turns ONNX Runtime's telemetry off for this process, unless the user set ORT_DISABLE_TELEMETRY
 * (0 keeps it on). The official builds since 1.29 start a telemetry uploader outside Windows when the
 * env is created: it reads the machine's id and writes /tmp/mat-debug-PID.log (one per process) and a
 * session file. A training framework should send nothing and leave no files it did not write. ORT reads
 * the variable while creating the env, so it is set first; DisableTelemetryEvents then stops the events
 * of builds that ignore it.
 */
function telemetryOff(): boolean {
  process.env.ORT_DISABLE_TELEMETRY ??= "1";
  return process.env.ORT_DISABLE_TELEMETRY !== "0";
}

/** GraphOptimizationLevel: ORT_ENABLE_ALL also applies layout and fusion rewrites (e.g. Transpose+MatMul). */
const ORT_ENABLE_ALL = 99;
/** ORT would also print every error it returns; Kiln reports them (with the program's name) itself. */
const ORT_LOGGING_LEVEL_FATAL = 4;
const OrtArenaAllocator = 1,
  OrtMemTypeDefault = 0;

/** The platforms whose ONNX Runtime library Kiln's package carries (scripts/vendor-onnxruntime.mjs copies them). */
const SHIPPED_FOR = ["linux-x64", "linux-arm64", "darwin-arm64"];

/** What to do where neither Kiln's package nor the project has the library: install it, or compute on XLA instead. */
const GET_ORT =
  "install npm package onnxruntime-node (`npm install onnxruntime-node@^1.30.0`) in the project using Kiln, or compute on an " +
  "XLA device (a GPU/TPU, or xla-cpu:N on XLA's CPU plugin), which does not need it";

/**
 * The path of ONNX Runtime's C library: the copy in Kiln's own package (vendor/onnxruntime/, for the
 * platforms in SHIPPED_FOR), else the one inside an `onnxruntime-node` that the project installed (any
 * version with C API 16 or newer). Resolved on first use, not when Kiln is imported: a process that
 * computes only on XLA devices never needs it (the GPU bundle ships without it).
 */
export function ortLibraryPath(): string {
  const platform = `${process.platform}-${process.arch}`;
  const file =
    process.platform === "win32" ? "onnxruntime.dll" : process.platform === "darwin" ? "libonnxruntime.1.dylib" : "libonnxruntime.so.1";
  // dist/src/exec/ort/ -> the package root
  const shipped = fileURLToPath(new URL(`../../../../vendor/onnxruntime/${platform}/${file}`, import.meta.url));
  if (existsSync(shipped)) return shipped;
  const why = SHIPPED_FOR.includes(platform)
    ? `Kiln's package lacks its copy (${shipped}; reinstall the package)`
    : `Kiln's package carries it for ${SHIPPED_FOR.join(", ")}, not for ${platform}`;
  let pkg: string;
  try {
    pkg = dirname(createRequire(import.meta.url).resolve("onnxruntime-node/package.json"));
  } catch (e) {
    if ((e as { code?: string }).code !== "MODULE_NOT_FOUND") throw e;
    throw new Error(
      `the ONNX Runtime executor (cpu:N, the default device) needs ONNX Runtime's C library (${file}): ${why}, and npm package ` +
        `onnxruntime-node is not installed: ${GET_ORT}`,
    );
  }
  const path = join(pkg, "bin", "napi-v6", process.platform, process.arch, file);
  if (!existsSync(path))
    throw new Error(
      `the ONNX Runtime executor (cpu:N, the default device) needs ONNX Runtime's C library (${file}): ${why}, and ` +
        `onnxruntime-node at ${pkg} does not have ${path}: ${GET_ORT}`,
    );
  return path;
}

type Fn = (...args: any[]) => any;

export interface OrtApi {
  readonly version: string;
  /** The file the library was loaded from (ortLibraryPath). */
  readonly library: string;
  /** OrtGetApiBase(): what a library of custom ops registers itself with. */
  readonly apiBase: Ptr;
  /** Throws an Error with ORT's message when `status` is non-null (and releases the status). */
  check(status: Ptr | null, what: string): void;
  /** The process's OrtEnv, with one intra-op thread pool of `threads` threads that sessions may share. */
  createEnv(threads: number): Ptr;
  /** Options for sessions with their own pool of `threads` threads, or that use the env's pool ("shared"). */
  createSessionOptions(threads: number | "shared"): Ptr;
  releaseSessionOptions(opts: Ptr): void;
  /** Makes sessions created with `opts` record ONNX Runtime's profile, to a file whose name starts with `prefix`. */
  enableProfiling(opts: Ptr, prefix: string): void;
  /** Ends a session's profile and returns the file it wrote. */
  endProfiling(session: Ptr): string;
  createSession(env: Ptr, model: Uint8Array, opts: Ptr): Ptr;
  releaseSession(session: Ptr): void;
  cpuMemoryInfo(): Ptr;
  /** An OrtValue over `bytes` bytes at `data` (ORT does not take ownership of the memory). */
  createTensor(info: Ptr, data: Ptr, bytes: number, shape: BigInt64Array, elemType: number): Ptr;
  releaseValue(value: Ptr): void;
  /** Runs a session; `outputs` holds pre-created OrtValues that ORT writes into. */
  run(session: Ptr, inputNames: BigUint64Array, inputs: BigUint64Array, outputNames: BigUint64Array, outputs: BigUint64Array): Ptr | null;
  errorMessage(status: Ptr): string;
  releaseStatus(status: Ptr): void;
}

let cached: OrtApi | undefined;
/**
 * Loaded libraries stay referenced here: koffi unloads a library whose handle is garbage collected,
 * and the functions below are raw pointers into it.
 */
const loaded: object[] = [];

/** Loads the library once per thread and binds the functions Kiln uses. */
export function ortApi(): OrtApi {
  if (cached) return cached;
  const library = ortLibraryPath();
  const lib = koffi.load(library);
  loaded.push(lib);
  const base = lib.func("void *OrtGetApiBase()")() as Ptr;
  const [getApi, getVersion] = koffi.decode(base, "void *", 2) as [Ptr, Ptr];
  const version = koffi.call(getVersion, koffi.proto("const char *OrtGetVersionString()")) as string;
  const table = koffi.call(getApi, koffi.proto("void *OrtGetApi(uint32_t version)"), ORT_API_VERSION) as Ptr | null;
  if (!table) throw new Error(`ONNX Runtime ${version} does not provide C API version ${ORT_API_VERSION}`);
  const slots = koffi.decode(table, "void *", 156) as Ptr[];
  const fn = (slot: number, signature: string): Fn => koffi.decode(slots[slot]!, koffi.proto(signature)) as Fn;

  const getErrorMessage = fn(SLOT.GetErrorMessage, "const char *OrtGetErrorMessage(void *status)");
  const releaseStatus = fn(SLOT.ReleaseStatus, "void OrtReleaseStatus(void *status)");
  const disableTelemetryEvents = fn(SLOT.DisableTelemetryEvents, "void *OrtDisableTelemetryEvents(void *env)");
  const createEnvWithGlobalThreadPools = fn(
    SLOT.CreateEnvWithGlobalThreadPools,
    "void *OrtCreateEnvWithGlobalThreadPools(int level, const char *logid, void *threading, _Out_ void **out)",
  );
  const disablePerSessionThreads = fn(SLOT.DisablePerSessionThreads, "void *OrtDisablePerSessionThreads(void *opts)");
  const createThreadingOptions = fn(SLOT.CreateThreadingOptions, "void *OrtCreateThreadingOptions(_Out_ void **out)");
  const releaseThreadingOptions = fn(SLOT.ReleaseThreadingOptions, "void OrtReleaseThreadingOptions(void *opts)");
  const setGlobalIntra = fn(SLOT.SetGlobalIntraOpNumThreads, "void *OrtSetGlobalIntraOpNumThreads(void *opts, int n)");
  const setGlobalInter = fn(SLOT.SetGlobalInterOpNumThreads, "void *OrtSetGlobalInterOpNumThreads(void *opts, int n)");
  const setGlobalDenormalAsZero = fn(SLOT.SetGlobalDenormalAsZero, "void *OrtSetGlobalDenormalAsZero(void *opts)");
  const createSessionFromArray = fn(
    SLOT.CreateSessionFromArray,
    "void *OrtCreateSessionFromArray(void *env, const void *data, size_t len, void *opts, _Out_ void **out)",
  );
  const runFn = fn(
    SLOT.Run,
    "void *OrtRun(void *session, void *runOpts, const void *inNames, const void *ins, size_t nIn, " +
      "const void *outNames, size_t nOut, void *outs)",
  );
  const createSessionOptions = fn(SLOT.CreateSessionOptions, "void *OrtCreateSessionOptions(_Out_ void **out)");
  const setOptLevel = fn(SLOT.SetSessionGraphOptimizationLevel, "void *OrtSetSessionGraphOptimizationLevel(void *opts, int level)");
  const setIntra = fn(SLOT.SetIntraOpNumThreads, "void *OrtSetIntraOpNumThreads(void *opts, int n)");
  const setInter = fn(SLOT.SetInterOpNumThreads, "void *OrtSetInterOpNumThreads(void *opts, int n)");
  const addConfigEntry = fn(SLOT.AddSessionConfigEntry, "void *OrtAddSessionConfigEntry(void *opts, const char *key, const char *value)");
  const createTensor = fn(
    SLOT.CreateTensorWithDataAsOrtValue,
    "void *OrtCreateTensorWithDataAsOrtValue(void *info, void *data, size_t len, const void *shape, size_t rank, " +
      "int type, _Out_ void **out)",
  );
  const createCpuMemoryInfo = fn(SLOT.CreateCpuMemoryInfo, "void *OrtCreateCpuMemoryInfo(int allocator, int memType, _Out_ void **out)");
  const releaseSession = fn(SLOT.ReleaseSession, "void OrtReleaseSession(void *session)");
  const releaseValue = fn(SLOT.ReleaseValue, "void OrtReleaseValue(void *value)");
  const releaseSessionOptions = fn(SLOT.ReleaseSessionOptions, "void OrtReleaseSessionOptions(void *opts)");
  const enableProfiling = fn(SLOT.EnableProfiling, "void *OrtEnableProfiling(void *opts, const char *prefix)");
  const sessionEndProfiling = fn(
    SLOT.SessionEndProfiling,
    "void *OrtSessionEndProfiling(void *session, void *allocator, _Out_ void **out)",
  );
  const getDefaultAllocator = fn(SLOT.GetAllocatorWithDefaultOptions, "void *OrtGetAllocatorWithDefaultOptions(_Out_ void **out)");
  const allocatorFree = fn(SLOT.AllocatorFree, "void *OrtAllocatorFree(void *allocator, void *p)");

  const check = (status: Ptr | null, what: string) => {
    if (!status) return;
    const msg = getErrorMessage(status) as string;
    releaseStatus(status);
    throw new Error(`ONNX Runtime: ${what}: ${msg}`);
  };
  const out = (): [Ptr | null] => [null];

  cached = {
    version,
    library,
    apiBase: base,
    check,
    createEnv(threads) {
      const t = out();
      check(createThreadingOptions(t), "CreateThreadingOptions");
      try {
        check(setGlobalIntra(t[0], threads), "SetGlobalIntraOpNumThreads");
        check(setGlobalInter(t[0], 1), "SetGlobalInterOpNumThreads");
        if (FLUSH_DENORMALS) check(setGlobalDenormalAsZero(t[0]), "SetGlobalDenormalAsZero");
        const o = out();
        const quiet = telemetryOff();
        check(createEnvWithGlobalThreadPools(ORT_LOGGING_LEVEL_FATAL, "kiln", t[0], o), "CreateEnvWithGlobalThreadPools");
        if (quiet) check(disableTelemetryEvents(o[0]), "DisableTelemetryEvents");
        return o[0]!;
      } finally {
        releaseThreadingOptions(t[0]);
      }
    },
    createSessionOptions(threads) {
      const o = out();
      check(createSessionOptions(o), "CreateSessionOptions");
      const opts = o[0]!;
      check(setOptLevel(opts, ORT_ENABLE_ALL), "SetSessionGraphOptimizationLevel");
      if (threads === "shared") check(disablePerSessionThreads(opts), "DisablePerSessionThreads");
      else {
        check(setIntra(opts, threads), "SetIntraOpNumThreads");
        // Programs are one long chain of dependent steps: ops run one after another, each on all threads.
        check(setInter(opts, 1), "SetInterOpNumThreads");
        if (FLUSH_DENORMALS) check(addConfigEntry(opts, "session.set_denormal_as_zero", "1"), "AddSessionConfigEntry");
      }
      return opts;
    },
    releaseSessionOptions: (opts) => releaseSessionOptions(opts),
    enableProfiling: (opts, prefix) => check(enableProfiling(opts, prefix), "EnableProfiling"),
    endProfiling(session) {
      const a = out();
      check(getDefaultAllocator(a), "GetAllocatorWithDefaultOptions");
      const file = out();
      check(sessionEndProfiling(session, a[0], file), "SessionEndProfiling");
      try {
        return koffi.decode(file[0]!, "char", -1) as string;
      } finally {
        check(allocatorFree(a[0], file[0]), "AllocatorFree");
      }
    },
    createSession(env, model, opts) {
      const o = out();
      // ORT sets the first session's denormal flag on the thread creating it: this thread keeps its own.
      keepingFloatEnvironment(() => check(createSessionFromArray(env, model, model.byteLength, opts, o), "CreateSessionFromArray"));
      return o[0]!;
    },
    releaseSession: (s) => releaseSession(s),
    cpuMemoryInfo() {
      const o = out();
      check(createCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, o), "CreateCpuMemoryInfo");
      return o[0]!;
    },
    createTensor(info, data, bytes, shape, elemType) {
      const o = out();
      check(createTensor(info, data, bytes, shape, shape.length, elemType, o), "CreateTensorWithDataAsOrtValue");
      return o[0]!;
    },
    releaseValue: (v) => releaseValue(v),
    run: (session, inNames, ins, outNames, outs) =>
      runFn(session, null, inNames, ins, ins.length, outNames, outs.length, outs) as Ptr | null,
    errorMessage: (status) => getErrorMessage(status) as string,
    releaseStatus: (status) => releaseStatus(status),
  };
  return cached;
}
