// Streams documents out of corpus files: plain text (one document per line) or JSON Lines (one object
// per line, the document in `textField`), either of them optionally gzip-compressed (recognized by its
// magic bytes, whatever the file is called). Files are read in chunks, so memory stays flat however
// large the corpus is.
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { createGunzip } from "node:zlib";

/** Options of readTextLines: read JSON Lines and take a field. */
export interface ReadTextOptions {
  /** Read JSON Lines and take each object's document from this field. */
  textField?: string;
}

function unreadable(path: string, e: unknown): Error {
  const err = e as NodeJS.ErrnoException;
  const why = err.code === "ENOENT" ? "no such file" : err.code === "EISDIR" ? "it is a directory, not a file" : err.message;
  return new Error(`cannot read input ${path}: ${why}`);
}

async function isGzip(path: string): Promise<boolean> {
  try {
    const file = await open(path, "r");
    try {
      const magic = Buffer.alloc(2);
      const { bytesRead } = await file.read(magic, 0, 2, 0);
      return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
    } finally {
      await file.close();
    }
  } catch (e) {
    throw unreadable(path, e);
  }
}

/** Input that is not text: bytes that are not UTF-8, or NUL bytes (valid UTF-8, but only binary files hold them). */
class NotTextError extends Error {}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function lineText(bytes: Uint8Array, path: string, lineNumber: number, offset: number, gzip: boolean): string {
  const where = `${path}:${lineNumber}: (the line starts at byte offset ${offset}${gzip ? " of the decompressed text" : ""})`;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new NotTextError(`${where} the line is not valid UTF-8 text; convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)`);
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0)
    throw new NotTextError(
      `${where} a NUL byte at byte offset ${offset + nul}: this looks like a binary file, not text; pass text files, one document per line`,
    );
  return text;
}

/**
 * Lines of one file, without their "\n" (or "\r\n"); a final newline does not start another line.
 * Lines are cut as bytes and decoded one by one, so that a line that is not text is named by number.
 */
async function* fileLines(path: string): AsyncGenerator<string> {
  const gzip = await isGzip(path);
  const raw = createReadStream(path);
  const source = gzip ? raw.pipe(createGunzip()) : raw;
  if (gzip) raw.on("error", (e) => source.destroy(e));
  // The start of a line not yet ended, in pieces (joined once, when its newline comes).
  let pieces: Buffer[] = [];
  /** Byte offset of the next line's start in the (decompressed) file. */
  let offset = 0;
  let lineNumber = 0;
  const line = (bytes: Buffer) => {
    const text = lineText(bytes.at(-1) === 13 ? bytes.subarray(0, -1) : bytes, path, ++lineNumber, offset, gzip);
    offset += bytes.length + 1;
    return text;
  };
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
        const head = chunk.subarray(start, nl);
        yield line(pieces.length > 0 ? Buffer.concat([...pieces, head]) : head);
        pieces = [];
        start = nl + 1;
      }
      if (start < chunk.length) pieces.push(chunk.subarray(start));
    }
  } catch (e) {
    if (e instanceof NotTextError) throw e;
    const err = e as NodeJS.ErrnoException;
    if (gzip && (err.code?.startsWith("Z_") || /unexpected end of file/i.test(err.message))) {
      throw new Error(
        `cannot read input ${path}: it looks gzip-compressed but does not decompress (${err.message}); check that the file is complete`,
      );
    }
    throw unreadable(path, err);
  }
  if (pieces.length > 0) yield line(Buffer.concat(pieces));
}

function documentOf(line: string, field: string, path: string, lineNumber: number): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch (e) {
    throw new Error(
      `${path}:${lineNumber}: not valid JSON (${(e as Error).message}); with --text-field every non-empty line must be one JSON object`,
    );
  }
  const value = typeof record === "object" && record !== null ? (record as Record<string, unknown>)[field] : undefined;
  if (typeof value !== "string") {
    throw new Error(
      `${path}:${lineNumber}: the record has no string field "${field}"${value === undefined ? "" : ` (found ${typeof value})`}; ` +
        `pick the field that holds the text with --text-field`,
    );
  }
  return value;
}

/** The documents of `paths`, in order. Blank JSON Lines are skipped; blank text lines are empty documents. */
export async function* readTextLines(paths: readonly string[], opts: ReadTextOptions = {}): AsyncGenerator<string> {
  if (paths.length === 0) throw new Error("no input files: name at least one corpus file");
  for (const path of paths) {
    let lineNumber = 0;
    for await (const line of fileLines(path)) {
      lineNumber++;
      if (opts.textField === undefined) yield line;
      else if (line.trim().length > 0) yield documentOf(line, opts.textField, path, lineNumber);
    }
  }
}
