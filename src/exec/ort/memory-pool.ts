// Tensor memory: native blocks handed out as allocations and recycled by size, so that a training step
// that donates its parameters and optimizer state writes the new ones into the old ones' memory and
// steady-state steps allocate nothing.
//
// A block released while runs that read it are still queued may be given at once to a run submitted
// later (runs execute in submission order), but not to the host (which writes immediately) and not
// back to the system until those runs have finished.
import type { Ptr } from "./ort-api.js";
import { nativeAlloc, nativeFree } from "./native-memory.js";
import type { RunQueue } from "./run-queue.js";

/** Memory kept for reuse beyond what is live; more is returned to the system. */
const POOL_LIMIT_BYTES = 1 << 30;

interface Block {
  readonly ptr: Ptr;
  readonly bytes: number;
  /** The last run that reads or writes the block. */
  lastUse: number;
}

let nextAllocationId = 1;

/** One use of a block, shared by every buffer that views the same value. */
export class Allocation {
  /** Unique per use: a failed run poisons its outputs by id, and recycling gives a fresh id. */
  readonly id = nextAllocationId++;
  refs = 1;
  constructor(readonly block: Block) {}
  get ptr(): Ptr {
    return this.block.ptr;
  }
  get bytes(): number {
    return this.block.bytes;
  }
  /** Records that run `seq` reads or writes this memory. */
  use(seq: number): void {
    if (seq > this.block.lastUse) this.block.lastUse = seq;
  }
}

export class MemoryPool {
  private readonly free = new Map<number, Block[]>();
  private pooledBytes = 0;
  /** Blocks ever taken from the system (a steady training loop stops adding to it). */
  nativeAllocations = 0;
  /** Bytes of the blocks in use now (acquired and not yet released); with pooledBytes, what the pool holds. */
  liveBytes = 0;

  /** Bytes of released blocks kept for reuse. */
  get pooled(): number {
    return this.pooledBytes;
  }

  constructor(private readonly queue: RunQueue) {}

  /** Memory for a run's output (`forHost` false) or for host data written now (`forHost` true). */
  acquire(bytes: number, forHost: boolean): Allocation {
    this.liveBytes += bytes;
    const list = this.free.get(bytes);
    if (list?.length) {
      const done = this.queue.completed();
      const i = forHost ? list.findIndex((b) => b.lastUse <= done) : list.length - 1;
      if (i >= 0) {
        const [block] = list.splice(i, 1);
        this.pooledBytes -= bytes;
        return new Allocation(block!);
      }
    }
    this.nativeAllocations++;
    return new Allocation({ ptr: nativeAlloc(bytes), bytes, lastUse: 0 });
  }

  retain(a: Allocation): Allocation {
    a.refs++;
    return a;
  }

  release(a: Allocation): void {
    if (--a.refs > 0) return;
    const block = a.block;
    this.liveBytes -= block.bytes;
    if (this.pooledBytes + block.bytes <= POOL_LIMIT_BYTES) {
      const list = this.free.get(block.bytes) ?? [];
      list.push(block);
      this.free.set(block.bytes, list);
      this.pooledBytes += block.bytes;
    } else {
      this.queue.whenDone(block.lastUse, () => nativeFree(block.ptr));
    }
  }
}
