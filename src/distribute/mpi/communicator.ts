// MPI_COMM_WORLD for TypeScript: rank, size, and the collectives data parallelism needs (all-reduce sum
// in place, broadcast, barrier), plus abort. Every blocking collective runs as a koffi asynchronous call
// on a worker thread, so the JS main thread stays free while MPI waits on the other ranks (timers,
// signals, the progress bar, a watchdog). MPI is initialized with MPI_THREAD_SERIALIZED and the calls are
// queued one at a time, so a call never overlaps another and every rank issues them in the same order,
// whichever worker thread koffi picks.
import { writeSync } from "node:fs";
import { loadMpi, type MpiFlavor, type MpiLibrary } from "./library.js";

const MPI_THREAD_SERIALIZED = 2;

/**
 * Seconds a collective waits by default before a hung or stopped rank is taken for dead and the job is
 * ended: every rank of a step meets at its all-reduce well within this, so a rank that stops makes the
 * others exit within a minute instead of hanging.
 */
export const DEFAULT_COLLECTIVE_TIMEOUT_S = 60;

/**
 * A barrier that waits for rank 0's writes (checkpoints, the final model) waits at least this long:
 * writing a large model and its optimizer state can take minutes on slow disks.
 */
export const WRITE_BARRIER_TIMEOUT_S = 300;

function collectiveTimeout(value: string | undefined): number {
  if (value === undefined || value === "") return DEFAULT_COLLECTIVE_TIMEOUT_S;
  const n = Number(value);
  if (!(n > 0 && Number.isFinite(n))) throw new Error(`KILN_COLLECTIVE_TIMEOUT must be a number of seconds > 0, got "${value}"`);
  return n;
}

export type FloatBuffer = Float32Array | Float64Array;

export class MpiCommunicator {
  private queue: Promise<unknown> = Promise.resolve();
  private finalized = false;

  /** How long a collective may wait for the other ranks before the job is aborted (KILN_COLLECTIVE_TIMEOUT, seconds). */
  readonly timeoutSeconds: number;

  private constructor(
    readonly lib: MpiLibrary,
    readonly rank: number,
    readonly size: number,
  ) {
    this.timeoutSeconds = collectiveTimeout(process.env.KILN_COLLECTIVE_TIMEOUT);
  }

  /** Initializes MPI (once per process) and returns MPI_COMM_WORLD. */
  static init(flavor?: MpiFlavor): MpiCommunicator {
    const lib = loadMpi(flavor);
    const flag = [0];
    check(lib, lib.fn.MPI_Initialized(flag), "MPI_Initialized");
    if (!flag[0]) {
      const provided = [0];
      check(lib, lib.fn.MPI_Init_thread(null, null, MPI_THREAD_SERIALIZED, provided), "MPI_Init_thread");
      if (provided[0]! < MPI_THREAD_SERIALIZED)
        throw new Error(
          `${lib.path} provides thread level ${provided[0]}, below MPI_THREAD_SERIALIZED (2), ` +
            "which Kiln needs to call MPI from worker threads",
        );
    }
    const rank = [0],
      size = [0];
    check(lib, lib.fn.MPI_Comm_rank(lib.handles.commWorld, rank), "MPI_Comm_rank");
    check(lib, lib.fn.MPI_Comm_size(lib.handles.commWorld, size), "MPI_Comm_size");
    return new MpiCommunicator(lib, rank[0]!, size[0]!);
  }

  /** Sums `buf` element-wise over all ranks, in place (every rank gets the sum). */
  allReduceSum(buf: FloatBuffer): Promise<void> {
    const h = this.lib.handles;
    const type = buf instanceof Float64Array ? h.double : h.float;
    return this.call("MPI_Allreduce", h.inPlace, buf, buf.length, type, h.sum, h.commWorld);
  }

  /** The element-wise maximum of `buf` over all ranks, in place. */
  allReduceMax(buf: FloatBuffer): Promise<void> {
    const h = this.lib.handles;
    const type = buf instanceof Float64Array ? h.double : h.float;
    return this.call("MPI_Allreduce", h.inPlace, buf, buf.length, type, h.max, h.commWorld);
  }

  /** Copies `root`'s bytes into `buf` on every rank (the same length on all of them). */
  broadcast(buf: Uint8Array | FloatBuffer, root = 0): Promise<void> {
    const h = this.lib.handles;
    return this.call("MPI_Bcast", buf, buf.byteLength, h.byte, root, h.commWorld);
  }

  /** Waits for every rank; `forWrites`: the others wait for rank 0's files, so it may wait longer. */
  barrier(o: { forWrites?: boolean } = {}): Promise<void> {
    const seconds = o.forWrites ? Math.max(this.timeoutSeconds, WRITE_BARRIER_TIMEOUT_S) : this.timeoutSeconds;
    return this.callWithin(seconds, "MPI_Barrier", this.lib.handles.commWorld);
  }

  /** Ends every rank of the job (MPI_Abort): what a rank does when it cannot go on. Never returns. */
  abort(code = 1): never {
    this.lib.fn.MPI_Abort(this.lib.handles.commWorld, code);
    process.exit(code);
  }

  /** MPI_Abort without leaving the process (for an exit handler). */
  abortNow(code = 1): void {
    if (!this.finalized) this.lib.fn.MPI_Abort(this.lib.handles.commWorld, code);
  }

  /** MPI_Finalize, once, after the queued calls have finished. */
  async finalize(): Promise<void> {
    await this.queue.catch(() => undefined);
    this.finalizeNow();
  }

  /** MPI_Finalize now (for an exit handler: no collective may be in flight). */
  finalizeNow(): void {
    if (this.finalized) return;
    this.finalized = true;
    const flag = [0];
    this.lib.fn.MPI_Finalized(flag);
    if (!flag[0]) check(this.lib, this.lib.fn.MPI_Finalize(), "MPI_Finalize");
  }

  private call(name: "MPI_Allreduce" | "MPI_Bcast" | "MPI_Barrier", ...args: unknown[]): Promise<void> {
    return this.callWithin(this.timeoutSeconds, name, ...args);
  }

  private callWithin(seconds: number, name: "MPI_Allreduce" | "MPI_Bcast" | "MPI_Barrier", ...args: unknown[]): Promise<void> {
    if (this.finalized) return Promise.reject(new Error(`${name} after MPI_Finalize`));
    const run = () =>
      new Promise<void>((resolve, reject) => {
        // A rank that stopped (hung, or stopped by a debugger) leaves the others in this call for good;
        // MPI itself never times out. The main thread is free meanwhile, so a timer can end the job.
        const watchdog = setTimeout(() => {
          writeSync(
            2,
            `${this.rank > 0 ? `[rank ${this.rank}] ` : ""}${name} waited ${seconds} s for the other ranks ` +
              `(KILN_COLLECTIVE_TIMEOUT): a rank is hung or stopped; aborting every rank\n`,
          );
          this.lib.fn.MPI_Abort(this.lib.handles.commWorld, 1);
        }, seconds * 1000);
        watchdog.unref();
        this.lib.fn[name].async(...args, (err: unknown, rc: number) => {
          clearTimeout(watchdog);
          if (err) reject(err);
          else if (rc !== 0) reject(new Error(`${name} failed: ${errorString(this.lib, rc)}`));
          else resolve();
        });
      });
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

function errorString(lib: MpiLibrary, rc: number): string {
  const text = new Uint8Array(512),
    len = [0];
  if (lib.fn.MPI_Error_string(rc, text, len) !== 0) return `error ${rc}`;
  return `${new TextDecoder().decode(text.subarray(0, len[0]))} (error ${rc})`;
}

function check(lib: MpiLibrary, rc: number, name: string): void {
  if (rc !== 0) throw new Error(`${name} failed in ${lib.path}: ${errorString(lib, rc)}`);
}
