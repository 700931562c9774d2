// The reference grouping: within each group of rows, concatenate all token ids, cut the total to a
// multiple of maxLength, and split it into chunks of maxLength; the remainder of each group is
// dropped. Chunks are emitted as soon as they are complete rather than at the end of the group (same
// chunks, same order), so serialization overlaps with encoding.

export class GroupChunker {
  /** Ids of the current group not yet emitted (fewer than maxLength after each `add`). */
  private carry: Int32Array = new Int32Array(0);
  /** Tokens dropped as group remainders so far. */
  dropped = 0;

  constructor(
    private readonly maxLength: number,
    /** Receives `count` chunks laid out back to back in `ids` (count * maxLength values). */
    private readonly onChunks: (ids: Int32Array, count: number) => void | Promise<void>,
  ) {}

  /** Adds the ids of the next rows of the current group and emits the chunks they complete. */
  async add(ids: Int32Array): Promise<void> {
    const total = this.carry.length + ids.length;
    const count = Math.floor(total / this.maxLength);
    if (count === 0) {
      this.carry = concat(this.carry, ids);
      return;
    }
    const chunks = new Int32Array(count * this.maxLength);
    chunks.set(this.carry);
    const fromIds = chunks.length - this.carry.length;
    chunks.set(ids.subarray(0, fromIds), this.carry.length);
    this.carry = ids.slice(fromIds);
    await this.onChunks(chunks, count);
  }

  /** Closes the current group: its last partial chunk is dropped. */
  endGroup(): void {
    this.dropped += this.carry.length;
    this.carry = new Int32Array(0);
  }
}

function concat(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
