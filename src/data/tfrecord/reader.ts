// Streaming TFRecord reader: turns a stream of byte chunks into records, verifying both checksums of
// every record. Records are returned as views into the read chunks (no copy unless a record straddles
// two chunks).
import { crc32c, maskCrc } from "./crc32c.js";
import { FOOTER_BYTES, HEADER_BYTES, readU32 } from "./frame.js";
import { GzipStreamError, ShardCountError, TFRecordError } from "./errors.js";

/** Options of RecordReader: the file name for errors, compression, and the stream's offset. */
export interface RecordReaderOptions {
  /** File name for error messages. */
  file: string;
  /** The stream is decompressed GZIP: offsets in errors refer to the decompressed bytes. */
  compressed?: boolean;
  /** Absolute offset of the stream's first byte (when reading from the middle of a file). */
  startOffset?: number;
  /**
   * Skip bad records instead of failing, like TensorFlow's `ignore_errors`. A record whose data
   * checksum fails is skipped alone; a bad length (or a truncated tail) ends the file, since the
   * framing after it cannot be trusted. Each skip is reported to `onSkip` with the number of
   * records it cost (see expectedRecords).
   */
  ignoreErrors?: boolean;
  onSkip?: (error: TFRecordError, records: number) => void;
  /**
   * The record count the file's name states. Reading to the end checks it, since a shard cut at a
   * record boundary (or emptied) has clean framing; and where bad framing ends the file early it
   * says how many records were lost with it (otherwise that counts as one record).
   */
  expectedRecords?: number;
  /**
   * The stream's total length, where it is known before reading (an uncompressed file's size): a
   * length field that runs past it fails at once, instead of after buffering the rest of the file.
   */
  streamLength?: () => Promise<number>;
}

/** Records needing more than this beyond what is buffered make the reader ask for the stream's length first. */
const CHECK_LENGTH_ABOVE_BYTES = 1 << 20;

/** Records larger than this are refused: a length this big means a damaged or foreign file. */
const MAX_RECORD_BYTES = 2 ** 31 - 1;

/**
 * Records larger than this are refused where the stream's length is not known in advance (a GZIP
 * file's decompressed bytes): buffering up to MAX_RECORD_BYTES to find that a length field lied would
 * cost gigabytes of memory. Kiln's records are kilobytes; TensorFlow's own readers hold one record in memory.
 */
export const MAX_UNBOUNDED_RECORD_BYTES = 2 ** 28;

/** Turns a stream of byte chunks into TFRecord records, verifying both checksums of each. */
export class RecordReader {
  private readonly source: AsyncIterator<Uint8Array>;
  private buf: Uint8Array = new Uint8Array(0);
  private pos = 0;
  /** Absolute stream offset of buf[0]. */
  private base: number;
  private eof = false;
  /** Why the stream ended early (damaged GZIP data): reported at the first record it cuts short. */
  private streamError: string | undefined;
  private stopped = false;
  /** Bytes from `pos` the pending record needs, so `fill` can gather them with a single copy. */
  private need = HEADER_BYTES;
  /** The stream's length, once asked for (see RecordReaderOptions.streamLength). */
  private streamEnd: number | undefined;
  /** Offset of the record most recently returned. */
  lastOffset = -1;
  /** Records returned so far. */
  private returned = 0;
  /** Records skipped so far because of errors (with ignoreErrors). */
  skipped = 0;

  constructor(
    source: AsyncIterable<Uint8Array>,
    private readonly options: RecordReaderOptions,
  ) {
    this.source = source[Symbol.asyncIterator]();
    this.base = options.startOffset ?? 0;
  }

  /** The next record, or null at the end of the stream. */
  async read(): Promise<Uint8Array | null> {
    for (;;) {
      const record = this.tryRead();
      if (record !== null) return record;
      if (this.finished()) return null;
      await this.fill();
    }
  }

  /**
   * The next record if its bytes are already buffered, else null (then call `fill`, or stop if
   * `finished()`). Lets a caller pull many records without a promise per record.
   */
  tryRead(): Uint8Array | null {
    while (!this.stopped) {
      const avail = this.buf.length - this.pos;
      if (avail < HEADER_BYTES) {
        if (this.eof && (avail > 0 || this.streamError))
          this.fail(this.pos, this.streamError ?? `truncated record header: ${avail} of ${HEADER_BYTES} bytes present`, true);
        else if (this.eof) this.checkCount();
        this.need = HEADER_BYTES;
        return null;
      }
      const p = this.pos;
      const buf = this.buf;
      const lengthCrc = maskCrc(crc32c(buf, 0, p, p + 8));
      if (lengthCrc !== readU32(buf, p + 8)) {
        this.fail(p, `length checksum mismatch (stored 0x${hex(readU32(buf, p + 8))}, computed 0x${hex(lengthCrc)})`, true);
        continue;
      }
      const lo = readU32(buf, p);
      const hi = readU32(buf, p + 4);
      if (hi !== 0 || lo > MAX_RECORD_BYTES) {
        this.fail(p, `record length ${(BigInt(hi) << 32n) | BigInt(lo)} exceeds the ${MAX_RECORD_BYTES}-byte limit`, true);
        continue;
      }
      const end = p + HEADER_BYTES + lo + FOOTER_BYTES;
      if (end > buf.length) {
        if (this.eof) this.fail(p, this.streamError ?? truncated(lo, avail - HEADER_BYTES), true);
        else if (lo > MAX_UNBOUNDED_RECORD_BYTES && !this.options.streamLength) {
          const stream = this.options.compressed ? "a GZIP file, whose decompressed length" : "a stream whose length";
          this.fail(
            p,
            `record length ${lo} exceeds the ${MAX_UNBOUNDED_RECORD_BYTES}-byte limit of a record in ${stream} is not known in advance ` +
              `(a length this large means the length field is damaged)`,
            true,
          );
          continue;
        }
        this.need = end - p;
        return null;
      }
      const dataStart = p + HEADER_BYTES;
      const dataCrc = maskCrc(crc32c(buf, 0, dataStart, dataStart + lo));
      this.pos = end;
      if (dataCrc !== readU32(buf, dataStart + lo)) {
        this.fail(p, `data checksum mismatch (stored 0x${hex(readU32(buf, dataStart + lo))}, computed 0x${hex(dataCrc)})`, false);
        continue;
      }
      this.lastOffset = this.base + p;
      this.returned++;
      return buf.subarray(dataStart, dataStart + lo);
    }
    return null;
  }

  /** True when no more records will come. */
  finished(): boolean {
    return this.stopped || (this.eof && this.pos >= this.buf.length);
  }

  /** Reads from the stream until the pending record's bytes are buffered (or the stream ends). */
  async fill(): Promise<void> {
    const rest = this.buf.length - this.pos;
    if (this.need - rest > CHECK_LENGTH_ABOVE_BYTES && this.options.streamLength) {
      this.streamEnd ??= await this.options.streamLength();
      const following = this.streamEnd - (this.base + this.pos) - HEADER_BYTES;
      if (this.need - HEADER_BYTES > following)
        return this.fail(this.pos, truncated(this.need - HEADER_BYTES - FOOTER_BYTES, following), true);
    }
    const chunks: Uint8Array[] = [];
    let have = rest;
    while (!this.eof && (chunks.length === 0 || have < this.need)) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await this.source.next();
      } catch (e) {
        if (!(e instanceof GzipStreamError)) throw e;
        // The bytes before the damage still hold whole records; the error comes where they end.
        this.streamError = e.message;
        next = { done: true, value: undefined };
      }
      if (next.done) this.eof = true;
      else {
        chunks.push(next.value);
        have += next.value.length;
      }
    }
    if (chunks.length === 0) return;
    this.base += this.pos;
    if (rest === 0 && chunks.length === 1) this.buf = chunks[0]!;
    else {
      // One copy joins the unread tail and the new chunks: a record may straddle chunks.
      const joined = new Uint8Array(have);
      joined.set(this.buf.subarray(this.pos), 0);
      let at = rest;
      for (const c of chunks) {
        joined.set(c, at);
        at += c.length;
      }
      this.buf = joined;
    }
    this.pos = 0;
  }

  /** Stops reading early and releases the underlying stream. */
  async close(): Promise<void> {
    this.stopped = true;
    await this.source.return?.();
  }

  /** At the clean end of the stream: the records read must be as many as the file's name says. */
  private checkCount(): void {
    const expected = this.options.expectedRecords;
    if (expected === undefined || this.returned + this.skipped === expected) return;
    this.stopped = true;
    throw new ShardCountError(this.options.file, this.returned + this.skipped, expected);
  }

  private fail(pos: number, problem: string, framingLost: boolean): void {
    const error = new TFRecordError(this.options.file, this.base + pos, problem, this.options.compressed);
    if (!this.options.ignoreErrors) {
      this.stopped = true;
      void this.source.return?.();
      throw error;
    }
    // Bad framing loses the rest of the file: as many records as its name says were still to come.
    const expected = this.options.expectedRecords;
    const records = framingLost && expected !== undefined ? Math.max(0, expected - this.returned - this.skipped) : 1;
    this.skipped += records;
    this.options.onSkip?.(error, records);
    if (framingLost) {
      this.stopped = true;
      void this.source.return?.();
    }
  }
}

/** A record whose header announces more bytes than follow it: `following` counts everything after the header. */
function truncated(dataBytes: number, following: number): string {
  return (
    `truncated record: its header announces ${dataBytes} data bytes and a ${FOOTER_BYTES}-byte checksum ` +
    `(${dataBytes + FOOTER_BYTES} bytes), but only ${following} bytes follow the header`
  );
}

function hex(v: number): string {
  return v.toString(16).padStart(8, "0");
}
