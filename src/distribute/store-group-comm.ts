// The group operations the Trainer needs besides the gradient sum (barriers around rank 0's writes,
// settings agreement, stop agreement, eval sums), spoken over the run's coordination store rather than
// MPI: what processes whose gradients XLA's own collectives sum (GPUs, TPUs) use, as JAX's
// multi-controller runs use its distributed client's key-value store. MpiCommunicator has the same
// methods; the store itself (launch/'s StoreClient) is passed in by the caller that knows it.

/** What the Trainer asks of its process group: MPI's communicator, or the coordination store. */
export interface GroupComm {
  /** Waits for every rank; `forWrites` waits longer (rank 0 may be writing a checkpoint). */
  barrier(o?: { forWrites?: boolean }): Promise<void>;
  /** Copies `root`'s bytes into `buf` on every rank (the same length on all of them). */
  broadcast(buf: Uint8Array | Float32Array | Float64Array, root?: number): Promise<void>;
  /** Sums `buf` element-wise over all ranks, in place. */
  allReduceSum(buf: Float32Array | Float64Array): Promise<void>;
  /** Maximum of `buf` element-wise over all ranks, in place. */
  allReduceMax(buf: Float32Array | Float64Array): Promise<void>;
}

/** The coordination store's operations used here (launch/'s StoreClient has them). */
export interface KeyValueStore {
  put(key: string, value: Uint8Array): Promise<void>;
  get(key: string, options: { timeoutMs: number }): Promise<Uint8Array>;
  delete(key: string): Promise<void>;
  barrier(name: string, options: { rank: number; count: number; timeoutMs: number }): Promise<void>;
}

/** As MPI's communicator: 60 s for a collective (KILN_COLLECTIVE_TIMEOUT), at least 300 s for a barrier around writes. */
function timeouts(env: NodeJS.ProcessEnv): { collectiveMs: number; writesMs: number } {
  const s = Number(env.KILN_COLLECTIVE_TIMEOUT ?? "60");
  const collectiveMs = Number.isFinite(s) && s > 0 ? s * 1000 : 60_000;
  return { collectiveMs, writesMs: Math.max(collectiveMs, 300_000) };
}

const bytesOf = (buf: Uint8Array | Float32Array | Float64Array) => new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);

/**
 * Group operations over a key-value store. Every rank makes the same calls in the same order (as with
 * MPI), so the n-th call's keys are the same on every rank: "<prefix>/<n>/<rank>".
 */
export class StoreGroupComm implements GroupComm {
  private calls = 0;
  /** Keys this rank put that another rank may still read (until every rank has passed a later barrier or all-reduce). */
  private own: string[] = [];
  private readonly t: { collectiveMs: number; writesMs: number };

  constructor(
    private readonly store: KeyValueStore,
    readonly rank: number,
    readonly size: number,
    private readonly prefix = "kiln/group",
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.t = timeouts(env);
  }

  private next(op: string): string {
    return `${this.prefix}/${this.calls++}/${op}`;
  }

  async barrier(o: { forWrites?: boolean } = {}): Promise<void> {
    const done = this.own;
    await this.store.barrier(this.next("barrier"), {
      rank: this.rank,
      count: this.size,
      timeoutMs: o.forWrites ? this.t.writesMs : this.t.collectiveMs,
    });
    await this.forget(done);
  }

  /**
   * Deletes keys of earlier calls once a barrier or all-reduce has completed: every rank then reached it,
   * so every rank finished the calls before it (the store does not grow with the steps of a run).
   */
  private async forget(keys: string[]): Promise<void> {
    this.own = this.own.filter((k) => !keys.includes(k));
    await Promise.all(keys.map((k) => this.store.delete(k)));
  }

  async broadcast(buf: Uint8Array | Float32Array | Float64Array, root = 0): Promise<void> {
    const key = this.next("broadcast");
    const mine = bytesOf(buf);
    if (this.rank === root) {
      this.own.push(key);
      return this.store.put(key, mine.slice());
    }
    const got = await this.store.get(key, { timeoutMs: this.t.collectiveMs });
    if (got.length !== mine.length)
      throw new Error(`broadcast from rank ${root}: ${got.length} bytes arrived where rank ${this.rank} expects ${mine.length}`);
    mine.set(got);
  }

  allReduceSum(buf: Float32Array | Float64Array): Promise<void> {
    return this.allReduce(buf, "sum", (a, b) => a + b);
  }

  allReduceMax(buf: Float32Array | Float64Array): Promise<void> {
    return this.allReduce(buf, "max", Math.max);
  }

  /** Every rank puts its values, reads every rank's, and reduces them in rank order (the same result everywhere). */
  private async allReduce(buf: Float32Array | Float64Array, op: string, f: (a: number, b: number) => number): Promise<void> {
    const key = this.next(op);
    const done = this.own;
    this.own = [...done, `${key}/${this.rank}`];
    await this.store.put(`${key}/${this.rank}`, bytesOf(buf).slice());
    const parts = await Promise.all(
      Array.from({ length: this.size }, (_, r) => this.store.get(`${key}/${r}`, { timeoutMs: this.t.collectiveMs })),
    );
    const Ctor = buf instanceof Float64Array ? Float64Array : Float32Array;
    const values = parts.map((p, r) => {
      if (p.byteLength !== buf.byteLength)
        throw new Error(`all-reduce (${op}): rank ${r} gave ${p.byteLength} bytes, rank ${this.rank} ${buf.byteLength}`);
      return new Ctor(Uint8Array.from(p).buffer);
    });
    for (let i = 0; i < buf.length; i++) {
      let acc = values[0]![i]!;
      for (let r = 1; r < values.length; r++) acc = f(acc, values[r]![i]!);
      buf[i] = acc;
    }
    await this.forget(done);
  }
}
