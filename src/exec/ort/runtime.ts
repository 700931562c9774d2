// Process-wide ONNX Runtime state, created on first use: the library binding, the one OrtEnv of the
// process with its shared intra-op thread pool, a CPU memory description, the run worker and the tensor
// memory pool. Importing Kiln does not load the library; the first array or program on a CPU device does.
import { availableParallelism } from "node:os";
import { ortApi, type OrtApi, type Ptr } from "./ort-api.js";
import { RunQueue } from "./run-queue.js";
import { MemoryPool } from "./memory-pool.js";
import type { PointwiseLibrary } from "./pointwise-library.js";

/** A positive integer from an option or environment variable, with an error naming it (and what leaving it out means). */
export function positiveInt(name: string, value: string | number | undefined, fallback: number, unsetMeans?: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a positive integer, got "${value}"${unsetMeans ? ` (unset it to ${unsetMeans})` : ""}`);
  return n;
}

/** Intra-op threads unless told otherwise: env KILN_CPU_THREADS, else every core the process may use. */
export function defaultThreads(): number {
  const cores = availableParallelism();
  return positiveInt("KILN_CPU_THREADS", process.env.KILN_CPU_THREADS, cores, `use every core, ${cores} here`);
}

/** What a session may have besides its model and threads. */
export interface SessionExtras {
  /** Generated kernels its graph runs (pointwise-library.ts). */
  readonly library?: PointwiseLibrary;
  /** Record ONNX Runtime's profile, to a file whose name starts with this. */
  readonly profile?: string;
}

/** ORT's refusal of a shared-pool session in an env made without global thread pools. */
const NO_SHARED_POOL = /EnvCreatedWithGlobalThreadPools\(\) was false|CreateEnvWithGlobalThreadPools API/;

export class OrtRuntime {
  readonly api: OrtApi = ortApi();
  /**
   * Sessions with the default thread count share the env's pool: one set of threads however many
   * programs are compiled (each eager op signature is a session), instead of a pool per session.
   */
  readonly sharedThreads = defaultThreads();
  readonly env: Ptr = this.api.createEnv(this.sharedThreads);
  readonly memoryInfo: Ptr = this.api.cpuMemoryInfo();
  readonly queue = new RunQueue();
  readonly pool = new MemoryPool(this.queue);
  /** Device buffers not yet disposed, donated or collected (a soak test watches it stay flat). */
  liveBuffers = 0;
  /** False once the env turned out to have no shared pool (another library created it first). */
  private shared = true;
  private readonly options = new Map<number | "shared", Ptr>();

  /**
   * A session for `model` whose runs use `threads` intra-op threads, with the kernels of `library`, and
   * recording ONNX Runtime's profile to a file starting with `profile`.
   */
  createSession(model: Uint8Array, threads: number, extra: SessionExtras = {}): Ptr {
    if (threads === this.sharedThreads && this.shared) {
      try {
        return this.createWith(model, "shared", extra);
      } catch (e) {
        // ORT's env is a process singleton: if the official binding made it first, it has no shared
        // pool and sessions must bring their own. Any other failure (a model ORT refuses) is this
        // program's alone, and must not cost every later session the shared pool.
        if (!NO_SHARED_POOL.test(String((e as Error).message))) throw e;
        this.shared = false;
      }
    }
    return this.createWith(model, threads, extra);
  }

  private createWith(model: Uint8Array, threads: number | "shared", { library, profile }: SessionExtras): Ptr {
    if (!library && profile === undefined) return this.api.createSession(this.env, model, this.sessionOptions(threads));
    // Options of their own: a library's kernels are added to the options, and other programs have other kernels.
    const opts = this.api.createSessionOptions(threads);
    try {
      if (library) this.api.check(library.register(opts, this.api.apiBase), `adding the pointwise kernels of ${library.path}`);
      if (profile !== undefined) this.api.enableProfiling(opts, profile);
      return this.api.createSession(this.env, model, opts);
    } finally {
      this.api.releaseSessionOptions(opts);
    }
  }

  private sessionOptions(threads: number | "shared"): Ptr {
    let o = this.options.get(threads);
    if (o === undefined) this.options.set(threads, (o = this.api.createSessionOptions(threads)));
    return o;
  }
}

let runtime: OrtRuntime | undefined;

export function ortRuntime(): OrtRuntime {
  return (runtime ??= new OrtRuntime());
}
