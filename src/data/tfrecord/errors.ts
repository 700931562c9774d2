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
        "The file is damaged or was cut short; re-create it, or read it with ignoreErrors to skip bad records.",
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
