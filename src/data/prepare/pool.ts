// A pool of encoder worker threads. Tasks go to the worker with the fewest tasks in flight; results
// come back as flat id arrays.
import { Worker } from "node:worker_threads";
import { workerExecArgv } from "../../io/worker-options.js";
import type { LineBatch } from "./task-builder.js";

export interface WorkerSetup {
  tokenizerDir: string;
}

export interface EncodeRequest {
  id: number;
  batch: LineBatch;
}

export type EncodeReply = { id: number; ids: Int32Array; rows: number } | { id: number; error: string };

export interface Encoded {
  /** Ids of all rows of the batch, back to back. */
  ids: Int32Array;
  /** Rows encoded (the batch's lines that are not blank). */
  rows: number;
}

interface Slot {
  worker: Worker;
  inFlight: number;
}

export class EncoderPool {
  private readonly slots: Slot[];
  private readonly waiting = new Map<number, { resolve: (e: Encoded) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private failure: Error | undefined;

  constructor(setup: WorkerSetup, size: number) {
    const url = new URL("./worker.js", import.meta.url);
    this.slots = Array.from({ length: Math.max(1, size) }, () => {
      const slot: Slot = { worker: new Worker(url, { workerData: setup, execArgv: workerExecArgv() }), inFlight: 0 };
      slot.worker.on("message", (reply: EncodeReply) => {
        slot.inFlight--;
        const waiter = this.waiting.get(reply.id)!;
        this.waiting.delete(reply.id);
        if ("error" in reply) waiter.reject(new Error(reply.error));
        else waiter.resolve({ ids: reply.ids, rows: reply.rows });
      });
      slot.worker.on("error", (e) => this.fail(e));
      slot.worker.on("exit", (code) => {
        if (code !== 0) this.fail(new Error(`an encoder worker exited with code ${code}`));
      });
      return slot;
    });
  }

  get size(): number {
    return this.slots.length;
  }

  /** Encodes a batch of lines; its bytes are transferred to the worker (unusable here afterwards). */
  encode(batch: LineBatch): Promise<Encoded> {
    if (this.failure) return Promise.reject(this.failure);
    const slot = this.slots.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
    const id = this.nextId++;
    slot.inFlight++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      const req: EncodeRequest = { id, batch };
      slot.worker.postMessage(req, [batch.bytes.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
  }
}
