// Reads the records of an epoch's files, several files at a time, taking one record from each open
// file in turn (round robin). When a file ends, the next file takes its place in the cycle; the order
// depends only on the files' record counts, so it is the same on every run.
import { openRecordReader, type Compression } from "../tfrecord/files.js";
import type { RecordReader } from "../tfrecord/reader.js";
import type { TFRecordError } from "../tfrecord/errors.js";
import { recordsFromFileName } from "../shards.js";

export interface InterleaveOptions {
  /** Files open at once. */
  cycleLength: number;
  compression?: Compression;
  ignoreErrors?: boolean;
  onSkip?: (error: TFRecordError, records: number) => void;
}

interface Slot {
  reader: RecordReader;
  /** Index of the file in the epoch's file list. */
  file: number;
}

/** Result of `tryNext`: a record is ready, the epoch's files are exhausted, or bytes must be awaited. */
export const RECORD = 1;
export const END = 0;
export const WAIT = -1;

export class InterleavedReader {
  private readonly slots: Slot[] = [];
  private nextFile = 0;
  private turn = 0;
  /** The current record (valid after tryNext returned RECORD), its file index and byte offset. */
  record: Uint8Array = new Uint8Array(0);
  file = -1;
  offset = -1;

  constructor(
    private readonly files: readonly string[],
    private readonly options: InterleaveOptions,
  ) {
    while (this.slots.length < options.cycleLength && this.nextFile < files.length) this.slots.push(this.open(this.nextFile++));
  }

  /** Moves to the next record if its bytes are buffered; see RECORD / END / WAIT. */
  tryNext(): number {
    while (this.slots.length > 0) {
      if (this.turn >= this.slots.length) this.turn = 0;
      const slot = this.slots[this.turn]!;
      const record = slot.reader.tryRead();
      if (record !== null) {
        this.record = record;
        this.file = slot.file;
        this.offset = slot.reader.lastOffset;
        this.turn++;
        return RECORD;
      }
      if (!slot.reader.finished()) return WAIT;
      // This file is done: the next file takes its place in the cycle, or the cycle shrinks.
      if (this.nextFile < this.files.length) this.slots[this.turn] = this.open(this.nextFile++);
      else this.slots.splice(this.turn, 1);
    }
    return END;
  }

  /** Reads more bytes for the file whose turn it is (call after tryNext returned WAIT). */
  async wait(): Promise<void> {
    await this.slots[this.turn]!.reader.fill();
  }

  /** Stops all reads (e.g. when iteration is abandoned). */
  async close(): Promise<void> {
    await Promise.all(this.slots.splice(0).map((s) => s.reader.close()));
  }

  private open(file: number): Slot {
    const { compression, ignoreErrors, onSkip } = this.options;
    return {
      file,
      reader: openRecordReader(this.files[file]!, {
        // Checked when the file has been read to its end: a shard short of records fails there.
        ...expectedRecords(this.files[file]!),
        ...(compression ? { compression } : {}),
        ...(ignoreErrors ? { ignoreErrors } : {}),
        ...(onSkip ? { onSkip } : {}),
      }),
    };
  }
}

function expectedRecords(path: string): { expectedRecords?: number } {
  const n = recordsFromFileName(path);
  return n === undefined ? {} : { expectedRecords: n };
}
