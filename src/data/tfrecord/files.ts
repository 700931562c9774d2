// TFRecord files on any storage: reading (with both checksums verified) and atomic writing, plain or
// GZIP-compressed (TensorFlow's `compression_type="GZIP"`: the whole framed stream is one gzip stream).
import { Readable } from "node:stream";
import { once } from "node:events";
import { createGunzip, createGzip } from "node:zlib";
import { storageFor, type AtomicWriter } from "../storage/index.js";
import { RecordReader, type RecordReaderOptions } from "./reader.js";
import { framedLength, writeFrame } from "./frame.js";
import { GzipStreamError } from "./errors.js";

/** How a TFRecord file is compressed. */
export type Compression = "none" | "gzip";

/** The compression of a file: as given, else GZIP for names ending in `.gz`. */
function compressionOf(path: string, explicit?: Compression): Compression {
  return explicit ?? (path.endsWith(".gz") ? "gzip" : "none");
}

export interface OpenReaderOptions extends Omit<RecordReaderOptions, "file" | "compressed"> {
  compression?: Compression;
  /** Sees each chunk of the file's bytes as stored (before decompression), in order: for a digest of the file. */
  onBytes?: (chunk: Uint8Array) => void;
}

async function* tapped(source: AsyncIterable<Uint8Array>, onBytes: (chunk: Uint8Array) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    onBytes(chunk);
    yield chunk;
  }
}

/** Opens a streaming reader over the records of one TFRecord file. */
export function openRecordReader(path: string, options: OpenReaderOptions = {}): RecordReader {
  const compression = compressionOf(path, options.compression);
  const { onBytes, ...rest } = options;
  options = rest;
  const stored = storageFor(path).read(path);
  const raw = onBytes ? tapped(stored, onBytes) : stored;
  if (compression === "gzip") return new RecordReader(gunzip(raw), { ...options, file: path, compressed: true });
  // The decompressed length of a GZIP file is unknown in advance; a plain file's is its size.
  return new RecordReader(raw, { ...options, file: path, streamLength: () => storageFor(path).size(path) });
}

/** All records of a file, in order. */
export async function* readRecords(path: string, options: OpenReaderOptions = {}): AsyncGenerator<Uint8Array> {
  const reader = openRecordReader(path, options);
  try {
    for (let r = await reader.read(); r !== null; r = await reader.read()) yield r;
  } finally {
    await reader.close();
  }
}

/** Counts the records of a file by walking its framing (checksums verified). */
export async function countRecords(path: string, options: OpenReaderOptions = {}): Promise<number> {
  const reader = openRecordReader(path, options);
  let n = 0;
  while ((await reader.read()) !== null) n++;
  return n;
}

/**
 * The decompressed bytes of a GZIP stream. A failure of the compressed data itself is a
 * GzipStreamError (so the reader can say which record it hit); a failure to read passes through.
 */
async function* gunzip(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const input = Readable.from(source);
  const gz = createGunzip();
  let readFailed = false;
  input.on("error", (e) => {
    readFailed = true;
    gz.destroy(e);
  });
  try {
    yield* input.pipe(gz) as AsyncIterable<Uint8Array>;
  } catch (e) {
    if (readFailed) throw e;
    throw new GzipStreamError((e as Error).message);
  } finally {
    input.destroy();
  }
}

const FLUSH_BYTES = 1 << 20;

/**
 * Writes a TFRecord file atomically: records are framed into a buffer that is flushed to the storage
 * writer in large pieces; nothing appears under the final name until `close` succeeds.
 */
export class TFRecordWriter {
  private buffer = new Uint8Array(FLUSH_BYTES);
  private used = 0;
  private count = 0;

  private constructor(
    readonly path: string,
    private readonly sink: AtomicWriter,
    private readonly gzip: { stream: ReturnType<typeof createGzip>; pump: Promise<void> } | undefined,
  ) {}

  static async open(path: string, options: { compression?: Compression } = {}): Promise<TFRecordWriter> {
    const sink = await storageFor(path).createWriter(path);
    if (compressionOf(path, options.compression) === "none") return new TFRecordWriter(path, sink, undefined);
    const stream = createGzip();
    const pump = (async () => {
      for await (const chunk of stream) await sink.write(chunk as Uint8Array);
    })();
    // A failed upload ends the gzip stream too, so a pending write fails instead of waiting forever;
    // close() reports the error itself by awaiting the pump.
    pump.catch((e: unknown) => stream.destroy(e as Error));
    return new TFRecordWriter(path, sink, { stream, pump });
  }

  /** Records written so far. */
  get records(): number {
    return this.count;
  }

  async write(record: Uint8Array): Promise<void> {
    const size = framedLength(record.length);
    if (this.used + size > this.buffer.length) {
      await this.flush();
      if (size > this.buffer.length) this.buffer = new Uint8Array(size);
    }
    this.used = writeFrame(record, this.buffer, this.used);
    this.count++;
  }

  /** Finishes the file and makes it visible under its final name. */
  async close(): Promise<void> {
    try {
      await this.flush();
      if (this.gzip) {
        this.gzip.stream.end();
        await this.gzip.pump;
      }
      await this.sink.commit();
    } catch (e) {
      await this.abort();
      throw e;
    }
  }

  /** Discards the file. */
  async abort(): Promise<void> {
    this.gzip?.stream.destroy();
    await this.sink.abort();
  }

  private async flush(): Promise<void> {
    if (this.used === 0) return;
    // The buffer is handed off, so a fresh one is needed for what comes next.
    const data = this.buffer.subarray(0, this.used);
    this.buffer = new Uint8Array(Math.max(FLUSH_BYTES, this.buffer.length));
    this.used = 0;
    await this.emit(data);
  }

  private async emit(data: Uint8Array): Promise<void> {
    if (!this.gzip) return this.sink.write(data);
    if (!this.gzip.stream.write(data)) await once(this.gzip.stream, "drain");
  }
}

/** Writes `records` to a TFRecord file atomically. */
export async function writeRecords(
  path: string,
  records: Iterable<Uint8Array>,
  options: { compression?: Compression } = {},
): Promise<number> {
  const writer = await TFRecordWriter.open(path, options);
  try {
    for (const r of records) await writer.write(r);
  } catch (e) {
    await writer.abort();
    throw e;
  }
  await writer.close();
  return writer.records;
}
