// A persistent compilation cache, as JAX's: every executable that took long enough to compile is
// serialized by the plugin (PJRT_Executable_Serialize) into a directory, under a key of everything that
// decides it, and a later run that compiles the same program loads it (PJRT_Executable_DeserializeAndLoad)
// instead. On a GPU, XLA's compile of a training step takes 40–80 s (docs/gpu.md); loading takes a
// fraction of a second. The serialization is not stable across plugin builds, so the key holds the
// plugin file's identity (path, size, modification time), its versions and the devices' kind.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Where the cache lives and which compiles it keeps. */
export interface CompilationCacheSettings {
  /** The directory of the cache's files (made when first written). */
  readonly dir: string;
  /** Compiles that took less than this many seconds are not written (JAX's default: 1). */
  readonly minCompileSeconds?: number;
}

/**
 * The cache the environment asks for: KILN_COMPILATION_CACHE_DIR (JAX's JAX_COMPILATION_CACHE_DIR),
 * and KILN_COMPILATION_CACHE_MIN_COMPILE_S (default 1). Unset: no cache.
 */
export function compilationCacheFromEnv(env: NodeJS.ProcessEnv = process.env): CompilationCacheSettings | undefined {
  const dir = env.KILN_COMPILATION_CACHE_DIR?.trim();
  if (!dir) return undefined;
  const min = env.KILN_COMPILATION_CACHE_MIN_COMPILE_S?.trim();
  if (min === undefined || min === "") return { dir };
  const seconds = Number(min);
  if (!(seconds >= 0))
    throw new Error(
      `KILN_COMPILATION_CACHE_MIN_COMPILE_S must be a number of seconds ≥ 0, got "${env.KILN_COMPILATION_CACHE_MIN_COMPILE_S}"`,
    );
  return { dir, minCompileSeconds: seconds };
}

/** What the cache did since it opened: executables loaded, compiled for want of one, and written. */
export interface CompilationCacheStats {
  hits: number;
  misses: number;
  written: number;
}

export class CompilationCache {
  readonly stats: CompilationCacheStats = { hits: 0, misses: 0, written: 0 };
  private readonly minCompileSeconds: number;
  private warned = false;

  /** `identity`: everything besides the program and its options that decides the executable. */
  constructor(
    readonly settings: CompilationCacheSettings,
    private readonly identity: string,
  ) {
    this.minCompileSeconds = settings.minCompileSeconds ?? 1;
  }

  /** The file of a program's executable: a SHA-256 of the identity, the compile options and the program text. */
  fileFor(program: string, compileOptions: Uint8Array): string {
    const h = createHash("sha256");
    h.update("kiln-xla-compilation-cache-1\0").update(this.identity).update("\0").update(compileOptions).update("\0").update(program);
    return join(this.settings.dir, `${h.digest("hex")}.pjrt`);
  }

  /**
   * The cached executable, or undefined when there is none. One that cannot be loaded (a damaged file, a
   * plugin that changed in place) is reported once and compiled again, which replaces it.
   */
  load<T>(file: string, deserialize: (bytes: Uint8Array) => T): T | undefined {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(file);
    } catch {
      this.stats.misses++;
      return undefined;
    }
    try {
      const loaded = deserialize(bytes);
      this.stats.hits++;
      return loaded;
    } catch (e) {
      this.stats.misses++;
      this.warn(`the cached executable ${file} could not be loaded (${(e as Error).message}); compiling again and replacing it`);
      return undefined;
    }
  }

  /** Writes the executable a compile of `seconds` made, atomically (a temporary file renamed into place). */
  store(file: string, seconds: number, serialize: () => Uint8Array): void {
    if (seconds < this.minCompileSeconds) return;
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      mkdirSync(this.settings.dir, { recursive: true });
      writeFileSync(tmp, serialize());
      renameSync(tmp, file);
      this.stats.written++;
    } catch (e) {
      rmSync(tmp, { force: true });
      this.warn(`the compilation cache could not write ${file} (${(e as Error).message}); the run goes on without it`);
    }
  }

  private warn(message: string): void {
    if (this.warned) return;
    this.warned = true;
    process.emitWarning(message, { code: "KILN_COMPILATION_CACHE" });
  }
}
