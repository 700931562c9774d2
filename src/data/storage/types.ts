// One interface over where data lives: local paths and gs://bucket/object URLs.

/** A file being written: nothing appears under its final name until `commit` succeeds. */
export interface AtomicWriter {
  write(chunk: Uint8Array): Promise<void>;
  /** Finishes the file and makes it visible under its final name. */
  commit(): Promise<void>;
  /** Discards everything written; the final name is left untouched. */
  abort(): Promise<void>;
}

/** Writes all of `data` through a fresh atomic writer: committed on success, aborted on failure. */
export async function writeAllAtomically(writer: AtomicWriter, data: Uint8Array): Promise<void> {
  try {
    await writer.write(data);
    await writer.commit();
  } catch (e) {
    await writer.abort();
    throw e;
  }
}

/** A byte range of a file to read. */
export interface ReadRange {
  /** First byte to read (default 0). */
  start?: number;
  /** One past the last byte to read (default: end of file). */
  end?: number;
}

/** A file system, local or gs://: glob, size, ranged reads, atomic writes, removal. */
export interface Storage {
  /** Files matching a glob (`*` and `?` within a path segment, `**` across segments), sorted. */
  glob(pattern: string): Promise<string[]>;
  /** Whether `path` is an existing file (not a directory or prefix). */
  isFile(path: string): Promise<boolean>;
  size(path: string): Promise<number>;
  /** Streams the bytes of `path`, optionally only a byte range. */
  read(path: string, range?: ReadRange): AsyncIterable<Uint8Array>;
  readAll(path: string): Promise<Uint8Array>;
  /** Opens an atomic writer for `path` (creating parent directories where that applies). */
  createWriter(path: string): Promise<AtomicWriter>;
  /** Writes `data` to `path` atomically. */
  writeAtomic(path: string, data: Uint8Array): Promise<void>;
  /** Deletes `path` if it exists. */
  remove(path: string): Promise<void>;
  /** Leftover temporary files of interrupted writes under `dir`, so a re-run can remove them. */
  staleTemporaries(dir: string): Promise<string[]>;
}
