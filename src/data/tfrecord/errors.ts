/** A damaged or truncated TFRecord: names the file and the byte offset where the bad record starts. */
export class TFRecordError extends Error {
  constructor(
    readonly file: string,
    /** Byte offset of the start of the bad record (in the decompressed stream for GZIP files). */
    readonly offset: number,
    /** What is wrong with it, e.g. "data checksum mismatch". */
    readonly problem: string,
    compressed = false,
  ) {
    super(
      `${file}: bad TFRecord at byte offset ${offset}${compressed ? " of the decompressed stream" : ""}: ${problem}. ` +
        "The file is damaged or was cut short: re-create it (a re-run of kiln data prepare rewrites damaged shards), " +
        "or skip bad records with --skip-bad-records (ignoreErrors in the API).",
    );
    this.name = "TFRecordError";
  }
}

/**
 * The GZIP layer of a compressed TFRecord file failed (damaged or cut-short compressed data). The
 * record reader turns it into a TFRecordError at the record it was reading.
 */
export class GzipStreamError extends Error {
  constructor(readonly zlibMessage: string) {
    super(`the GZIP data is damaged or cut short (zlib: ${zlibMessage})`);
    this.name = "GzipStreamError";
  }
}

/**
 * A shard whose framing is sound but whose record count differs from the one in its name
 * (`dataset-{index}-{records}.tfrecord`): cut at a record boundary, emptied, or replaced.
 */
export class ShardCountError extends Error {
  constructor(
    readonly file: string,
    readonly records: number,
    readonly expected: number,
  ) {
    super(
      `${file}: holds ${records} records but its name says ${expected} ` +
        `(${records < expected ? "it was cut short at a record boundary or emptied" : "it is not the shard its name describes"}). ` +
        "Re-create it (a re-run of kiln data prepare rewrites it), or remove it from the data.",
    );
    this.name = "ShardCountError";
  }
}
