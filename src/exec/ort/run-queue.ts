// The JS side of the run worker: submits runs, tells when each has finished (asynchronously through a
// promise, or synchronously by blocking on the shared state with Atomics.wait), and runs deferred
// releases once the runs that used a resource have finished.
import { Worker } from "node:worker_threads";
import { workerExecArgv } from "../../io/worker-options.js";
import {
  DONE,
  FAILED_LEN,
  FAILED_SEQ,
  FAILURES,
  MAX_IN_FLIGHT,
  MESSAGE_BYTES,
  STATE_WORDS,
  type DoneMessage,
  type RunMessage,
  type WorkerData,
} from "./run-protocol.js";

export interface RunTicket {
  readonly seq: number;
  /** Settles when the run has finished; rejects with its error. */
  readonly done: Promise<void>;
}

interface Waiter {
  resolve(): void;
  reject(e: Error): void;
}

export class RunQueue {
  private worker: Worker | undefined;
  private readonly stateBuffer = new SharedArrayBuffer(4 * STATE_WORDS);
  private readonly state = new Int32Array(this.stateBuffer);
  private readonly errorBuffer = new SharedArrayBuffer(FAILURES * MESSAGE_BYTES);
  private submitted = 0;
  private readonly waiters = new Map<number, Waiter>();
  private readonly errors = new Map<number, string>();
  /** Actions waiting for a run to finish. */
  private deferred: { seq: number; fn: () => void }[] = [];

  /** The last run submitted (0 before any). */
  get tail(): number {
    return this.submitted;
  }

  completed(): number {
    return Atomics.load(this.state, DONE);
  }

  isDone(seq: number): boolean {
    return this.completed() >= seq;
  }

  submit(message: Omit<RunMessage, "seq">): RunTicket {
    const seq = this.submitted + 1;
    // Back-pressure: a loop that never waits must not queue without bound.
    if (seq - this.completed() > MAX_IN_FLIGHT) this.waitFor(seq - MAX_IN_FLIGHT);
    this.submitted = seq;
    const done = new Promise<void>((resolve, reject) => this.waiters.set(seq, { resolve, reject }));
    // A failure nobody awaits must not crash the process: it surfaces when the value is read.
    done.catch(() => {});
    const worker = this.ensureWorker();
    if (this.waiters.size === 1) worker.ref();
    worker.postMessage({ ...message, seq } satisfies RunMessage);
    return { seq, done };
  }

  /** Blocks the calling thread until run `seq` has finished. */
  waitFor(seq: number): void {
    for (let done = this.completed(); done < seq; done = this.completed()) Atomics.wait(this.state, DONE, done);
  }

  /** The error of a finished run, or undefined if it succeeded. */
  failure(seq: number): string | undefined {
    const known = this.errors.get(seq);
    if (known) return known;
    for (let slot = 0; slot < FAILURES; slot++) {
      if (Atomics.load(this.state, FAILED_SEQ + slot) !== seq) continue;
      const len = Atomics.load(this.state, FAILED_LEN + slot);
      return new TextDecoder().decode(new Uint8Array(this.errorBuffer).slice(slot * MESSAGE_BYTES, slot * MESSAGE_BYTES + len));
    }
    return undefined;
  }

  /** Runs `fn` once run `seq` (and so every earlier run) has finished: at once if it already has. */
  whenDone(seq: number, fn: () => void): void {
    if (this.isDone(seq)) fn();
    else this.deferred.push({ seq, fn });
  }

  private drain(): void {
    const done = this.completed();
    const ready = this.deferred.filter((d) => d.seq <= done);
    if (!ready.length) return;
    this.deferred = this.deferred.filter((d) => d.seq > done);
    for (const d of ready) d.fn();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const data: WorkerData = { state: this.stateBuffer, errorText: this.errorBuffer };
    const worker = new Worker(new URL("./run-worker.js", import.meta.url), { workerData: data, execArgv: workerExecArgv() });
    worker.on("message", (m: DoneMessage) => this.finished(m));
    worker.on("error", (e) => this.crashed(e));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private finished({ seq, error }: DoneMessage): void {
    const w = this.waiters.get(seq);
    this.waiters.delete(seq);
    if (error) this.errors.set(seq, error);
    if (error) w?.reject(new Error(error));
    else w?.resolve();
    // The process may exit while nothing is in flight.
    if (this.waiters.size === 0) this.worker?.unref();
    this.drain();
  }

  private crashed(e: Error): void {
    const message = `the ONNX Runtime run worker stopped: ${e.message}`;
    for (const [seq, w] of this.waiters) {
      this.errors.set(seq, message);
      w.reject(new Error(message));
    }
    this.waiters.clear();
    Atomics.store(this.state, DONE, this.submitted);
    this.worker = undefined;
    this.drain();
  }
}
