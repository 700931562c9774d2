// A loaded PJRT plugin: its PJRT_Api table, the API version it reports, and calls through the table
// with argument structs, turning returned PJRT_Error objects into PjrtErrors with the plugin's message.
import "../../native-stacks.js"; // before koffi loads any library
import koffi from "koffi";
import { API_VERSION_OFFSET, functionOffset, type PjrtFunction } from "./api-table.js";
import { PjrtError } from "./errors.js";
import type { StructLayout } from "./layout.js";
import { readNamedValues, type AttributeValue } from "./named-values.js";
import { NativeStruct, readString } from "./native.js";
import { DECLARED_API_MINOR, S } from "./structs.js";

/** The major version this binding is written for (a major change reorders the API). */
const PJRT_API_MAJOR = 0;

// Every PJRT function takes a pointer to its argument struct; all but two return a PJRT_Error*.
const ErrorReturning = koffi.proto("void *KilnPjrtFunction(void *args)");
const VoidReturning = koffi.proto("void KilnPjrtVoidFunction(void *args)");
const GetPjrtApi = koffi.proto("void *KilnGetPjrtApi()");

const UNKNOWN_CODE = 2; // PJRT_Error_Code_UNKNOWN, for an error whose code cannot be read

type NativeFunction = ((args: bigint) => bigint | null) & {
  async: (args: bigint, done: (err: unknown, result: bigint | null) => void) => void;
};

// glibc's dlopen flags, to pin a library that is already loaded (RTLD_NOLOAD) for the life of the process.
const RTLD_NOW = 0x2,
  RTLD_NOLOAD = 0x4,
  RTLD_NODELETE = 0x1000;
let dlopen: ((path: string, flags: number) => bigint | null) | undefined;

/**
 * Keeps a loaded library mapped until the process ends. koffi closes its libraries when Node tears the
 * environment down, before the C exit handlers run; XLA's plugins register exit handlers of their own,
 * which would then jump into unmapped code (a segmentation fault at every exit).
 */
function pinUntilExit(path: string): void {
  dlopen ??= koffi.load("libc.so.6").func("void *dlopen(const char *path, int flags)") as (path: string, flags: number) => bigint | null;
  if (!dlopen(path, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE)) throw new Error(`${path} was loaded but dlopen cannot pin it in memory`);
}

/** Plugins are loaded and initialized once per process. */
const loadedApis = new Map<string, PjrtApi>();

/**
 * Opens libraries with their symbols global, in passes until no more load (a library whose
 * dependencies come later in the list loads in a later pass). Returns what never loaded, with why.
 */
function preloadLibraries(paths: readonly string[]): string[] {
  let left = [...paths];
  const why = new Map<string, string>();
  for (let progress = true; progress && left.length;) {
    progress = false;
    left = left.filter((lib) => {
      try {
        koffi.load(lib, { global: true });
        pinUntilExit(lib);
        progress = true;
        return false;
      } catch (e) {
        why.set(lib, (e as Error).message);
        return true;
      }
    });
  }
  return left.map((lib) => `${lib} (${why.get(lib)})`);
}

/** Minor versions already warned about, so that each is reported once per process. */
const warnedMinors = new Set<number>();

/**
 * A plugin newer than Kiln's declarations still works (structs only grow, and plugins read the fields
 * the caller's struct_size covers), but fields added since are left at their defaults: say so once.
 */
function warnIfNewer(api: PjrtApi): void {
  const { minor } = api.version;
  if (minor <= DECLARED_API_MINOR || warnedMinors.has(minor)) return;
  warnedMinors.add(minor);
  process.stderr.write(
    `kiln: the PJRT plugin ${api.path} implements PJRT C API 0.${minor}; Kiln declares the structs of 0.${DECLARED_API_MINOR}, ` +
      `so fields added since are left at their defaults\n`,
  );
}

export interface PjrtVersion {
  readonly major: number;
  readonly minor: number;
}

export class PjrtApi {
  private readonly functions = new Map<PjrtFunction, NativeFunction>();
  private initialized = false;
  private readonly table: DataView;

  private constructor(
    readonly path: string,
    readonly address: bigint,
    readonly structSize: number,
  ) {
    this.table = new DataView(koffi.view(address, structSize));
  }

  /**
   * Opens a plugin and reads its PJRT_Api. `preload` libraries are opened first with their symbols
   * global, so that the plugin (and what it opens later) finds them already loaded.
   */
  static load(path: string, preload: readonly string[] = []): PjrtApi {
    const known = loadedApis.get(path);
    if (known) return known;
    const notPreloaded = preloadLibraries(preload);
    let lib: ReturnType<typeof koffi.load>;
    try {
      lib = koffi.load(path);
      pinUntilExit(path);
    } catch (e) {
      const missing = notPreloaded.length ? `; these libraries it may need did not load: ${notPreloaded.join("; ")}` : "";
      throw new Error(`cannot load the PJRT plugin ${path}: ${(e as Error).message}${missing}`);
    }
    let entry: bigint;
    try {
      entry = lib.symbol("GetPjrtApi") as bigint;
    } catch {
      throw new Error(`${path} is not a PJRT plugin: it does not export GetPjrtApi`);
    }
    const address = (koffi.decode(entry, GetPjrtApi) as () => bigint | null)();
    if (!address) throw new Error(`${path}: GetPjrtApi returned no API`);
    const structSize = Number(new DataView(koffi.view(address, 8)).getBigUint64(0, true));
    const api = new PjrtApi(path, address, structSize);
    const { major } = api.version;
    if (major !== PJRT_API_MAJOR) throw new Error(`${path} implements PJRT C API ${major}.x; Kiln speaks ${PJRT_API_MAJOR}.x`);
    warnIfNewer(api);
    loadedApis.set(path, api);
    return api;
  }

  /** The version the plugin was built with, read from its PJRT_Api (never assumed). */
  get version(): PjrtVersion {
    return { major: this.table.getInt32(API_VERSION_OFFSET.major, true), minor: this.table.getInt32(API_VERSION_OFFSET.minor, true) };
  }

  /** Whether the plugin's PJRT_Api is long enough to hold `fn` and fills it in. */
  has(fn: PjrtFunction): boolean {
    const offset = functionOffset(fn);
    return this.structSize >= offset + 8 && this.table.getBigUint64(offset, true) !== 0n;
  }

  private fn(name: PjrtFunction, voidReturning = false): NativeFunction {
    let f = this.functions.get(name);
    if (!f) {
      if (!this.has(name))
        throw new Error(`the PJRT plugin ${this.path} (API ${this.version.major}.${this.version.minor}) does not provide ${name}`);
      const pointer = this.table.getBigUint64(functionOffset(name), true);
      f = koffi.decode(pointer, voidReturning ? VoidReturning : ErrorReturning) as NativeFunction;
      this.functions.set(name, f);
    }
    return f;
  }

  /**
   * Calls `name` with a fresh argument struct that `fill` sets up, and returns the struct so that the
   * caller can read outputs (and must free it). Throws the plugin's error, freeing the struct.
   */
  call(name: PjrtFunction, layout: StructLayout, fill: (args: NativeStruct) => void = () => {}): NativeStruct {
    const args = new NativeStruct(layout);
    try {
      fill(args);
      this.check(name, this.fn(name)(args.address));
      return args;
    } catch (e) {
      args.free();
      throw e;
    }
  }

  /** `call` for functions whose outputs are not needed. */
  run(name: PjrtFunction, layout: StructLayout, fill: (args: NativeStruct) => void = () => {}): void {
    this.call(name, layout, fill).free();
  }

  /** Calls a `void f(void *)` function pointer the plugin handed out (a deleter) with `arg`. */
  callDeleter(fn: bigint, arg: bigint): void {
    (koffi.decode(fn, VoidReturning) as NativeFunction)(arg);
  }

  /** Calls `name` on a libuv worker thread (for the blocking PJRT_Event_Await); resolves to the PJRT_Error*. */
  callOnWorker(name: PjrtFunction, args: NativeStruct): Promise<bigint | null> {
    return new Promise((resolve, reject) => this.fn(name).async(args.address, (err, result) => (err ? reject(err) : resolve(result))));
  }

  /** PJRT_Plugin_Initialize: once per process, before anything else. */
  initialize(): void {
    if (this.initialized) return;
    this.run("PJRT_Plugin_Initialize", S.Plugin_Initialize);
    this.initialized = true;
  }

  /** PJRT_Plugin_Attributes: xla_version, stablehlo_current_version, stablehlo_minimum_version, … */
  attributes(): Map<string, AttributeValue> {
    if (!this.has("PJRT_Plugin_Attributes")) return new Map();
    const args = this.call("PJRT_Plugin_Attributes", S.Plugin_Attributes);
    try {
      return readNamedValues(args.pointer("attributes"), args.size("num_attributes"));
    } finally {
      args.free();
    }
  }

  /** Throws a PjrtError for a non-null PJRT_Error* (and destroys it). */
  check(name: string, error: bigint | null): void {
    if (error) throw this.takeError(name, error);
  }

  /** The PjrtError for a PJRT_Error*: message and code read, the error destroyed. */
  takeError(name: string, error: bigint): PjrtError {
    const message = new NativeStruct(S.Error_Message).set("error", error);
    const code = new NativeStruct(S.Error_GetCode).set("error", error);
    try {
      this.fn("PJRT_Error_Message", true)(message.address);
      const text = readString(message.pointer("message"), message.size("message_size"));
      const codeError = this.fn("PJRT_Error_GetCode")(code.address);
      if (codeError) this.destroyError(codeError);
      return new PjrtError(name, codeError ? UNKNOWN_CODE : code.int("code"), text);
    } finally {
      message.free();
      code.free();
      this.destroyError(error);
    }
  }

  destroyError(error: bigint): void {
    const args = new NativeStruct(S.Error_Destroy).set("error", error);
    this.fn("PJRT_Error_Destroy", true)(args.address);
    args.free();
  }
}
