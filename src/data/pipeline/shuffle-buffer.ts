// A seeded shuffle buffer, as tf.data's: fill up to capacity, then emit a uniformly chosen element and
// put the next input in its place; once the input ends, drain in random order. The i-th choice of an
// epoch uses hash32(key, 0, i), so the order is a pure function of the key and the input order.
import { hash32, uniformIndex } from "../random.js";

/** A record with where it came from (file index and byte offset), for error messages. */
export interface PlacedRecord {
  record: Uint8Array;
  file: number;
  offset: number;
}

export class ShuffleBuffer {
  private readonly records: Uint8Array[] = [];
  // Grown on demand: small datasets never need the full capacity.
  private files = new Int32Array(1024);
  private offsets = new Float64Array(1024);
  private draws = 0;

  constructor(
    readonly capacity: number,
    private readonly key: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`shuffle buffer size must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.records.length;
  }

  get full(): boolean {
    return this.records.length >= this.capacity;
  }

  /** The index of a uniformly chosen element (the buffer must not be empty). */
  choose(): number {
    return uniformIndex(hash32(this.key, 0, this.draws++), this.records.length);
  }

  /** Adds an element (the buffer must not be full). */
  push(record: Uint8Array, file: number, offset: number): void {
    const i = this.records.length;
    if (i === this.files.length) this.grow();
    this.records.push(record);
    this.files[i] = file;
    this.offsets[i] = offset;
  }

  /** Moves element `i` out into `out` and puts a new element in its place. */
  replace(i: number, out: PlacedRecord, record: Uint8Array, file: number, offset: number): void {
    this.read(i, out);
    this.records[i] = record;
    this.files[i] = file;
    this.offsets[i] = offset;
  }

  /** Moves element `i` out into `out`; the last element takes its place. */
  take(i: number, out: PlacedRecord): void {
    this.read(i, out);
    const last = this.records.length - 1;
    this.records[i] = this.records[last]!;
    this.files[i] = this.files[last]!;
    this.offsets[i] = this.offsets[last]!;
    this.records.pop();
  }

  private read(i: number, out: PlacedRecord): void {
    out.record = this.records[i]!;
    out.file = this.files[i]!;
    out.offset = this.offsets[i]!;
  }

  private grow(): void {
    const files = new Int32Array(this.files.length * 2);
    files.set(this.files);
    const offsets = new Float64Array(this.offsets.length * 2);
    offsets.set(this.offsets);
    this.files = files;
    this.offsets = offsets;
  }
}
