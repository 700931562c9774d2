// The record stream of one epoch: interleaved reads of the epoch's files, through the shuffle buffer
// when shuffling.
import { END, InterleavedReader, RECORD, WAIT, type InterleaveOptions } from "./interleave.js";
import { ShuffleBuffer, type PlacedRecord } from "./shuffle-buffer.js";

export { END, RECORD };

export class EpochRecords {
  private readonly reader: InterleavedReader;
  private readonly buffer: ShuffleBuffer | undefined;
  private inputDone = false;
  /** The current record (after RECORD) with the index of its file in `files` and its byte offset. */
  readonly current: PlacedRecord = { record: new Uint8Array(0), file: -1, offset: -1 };

  constructor(
    readonly files: readonly string[],
    options: InterleaveOptions,
    shuffle: { capacity: number; key: number } | undefined,
  ) {
    this.reader = new InterleavedReader(files, options);
    this.buffer = shuffle && new ShuffleBuffer(shuffle.capacity, shuffle.key);
  }

  /** Moves to the next record (in `current`) if possible without waiting: RECORD, END or WAIT. */
  tryNext(): number {
    const reader = this.reader;
    const buffer = this.buffer;
    if (!buffer) {
      const r = reader.tryNext();
      if (r === RECORD) this.place(reader.record, reader.file, reader.offset);
      return r;
    }
    while (!this.inputDone && !buffer.full) {
      const r = reader.tryNext();
      if (r === WAIT) return WAIT;
      if (r === END) this.inputDone = true;
      else buffer.push(reader.record, reader.file, reader.offset);
    }
    if (!this.inputDone) {
      // Fetch the replacement before drawing, so that waiting never consumes a draw.
      const r = reader.tryNext();
      if (r === WAIT) return WAIT;
      if (r === RECORD) {
        buffer.replace(buffer.choose(), this.current, reader.record, reader.file, reader.offset);
        return RECORD;
      }
      this.inputDone = true;
    }
    if (buffer.size === 0) return END;
    buffer.take(buffer.choose(), this.current);
    return RECORD;
  }

  /** The next record (RECORD, in `current`) or END. */
  async next(): Promise<number> {
    for (;;) {
      const r = this.tryNext();
      if (r !== WAIT) return r;
      await this.reader.wait();
    }
  }

  async close(): Promise<void> {
    await this.reader.close();
  }

  private place(record: Uint8Array, file: number, offset: number): void {
    this.current.record = record;
    this.current.file = file;
    this.current.offset = offset;
  }
}
