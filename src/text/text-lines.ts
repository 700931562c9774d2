// Streams documents out of corpus files: plain text (one document per line) or JSON Lines (one object
// per line, the document in `textField`), either of them optionally gzip-compressed (recognized by its
// magic bytes, whatever the file is called). Files are read in chunks, so memory stays flat however
// large the corpus is.
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { createGunzip } from "node:zlib";

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

/** Lines of one file, without their "\n" (or "\r\n"); a final newline does not start another line. */
async function* fileLines(path: string): AsyncGenerator<string> {
  const gzip = await isGzip(path);
  const raw = createReadStream(path);
  const source = gzip ? raw.pipe(createGunzip()) : raw;
  if (gzip) raw.on("error", (e) => source.destroy(e));
  const decoder = new StringDecoder("utf8");
  let pending = "";
  try {
    for await (const chunk of source) {
      const text = pending + decoder.write(chunk as Buffer);
      let start = 0;
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
        yield text.charCodeAt(nl - 1) === 13 && nl > start ? text.slice(start, nl - 1) : text.slice(start, nl);
        start = nl + 1;
      }
      pending = text.slice(start);
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (gzip && (err.code?.startsWith("Z_") || /unexpected end of file/i.test(err.message))) {
      throw new Error(
        `cannot read input ${path}: it looks gzip-compressed but does not decompress (${err.message}); check that the file is complete`,
      );
    }
    throw unreadable(path, err);
  }
  const last = pending + decoder.end();
  if (last.length > 0) yield last.endsWith("\r") ? last.slice(0, -1) : last;
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
      `${path}:${lineNumber}: the record has no string field "${field}"${value === undefined ? "" : ` (found ${typeof value})`}; pick the field that holds the text with --text-field`,
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
