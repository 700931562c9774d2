// Local file system storage. Atomic writes go to a hidden temporary file in the destination directory,
// are flushed to disk, then renamed over the final name (rename is atomic within a file system).
import { createReadStream } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname } from "node:path";
import { writeAllAtomically, type AtomicWriter, type ReadRange, type Storage } from "./types.js";
import { globToRegExp, hasWildcard, literalPrefix } from "./glob.js";

/** Temporary files are named `.<final name>.tmp-<pid>-<random>` next to their final name. */
const TEMP_NAME = /^\..+\.tmp-\d+-[0-9a-f]+$/;

const READ_CHUNK_BYTES = 1 << 20;

/** How files are opened for writing: fs `open`, or a layer over it (tests use one that writes short). */
export type OpenForWriting = (path: string, flags: "wx") => Promise<FileHandle>;

export class LocalStorage implements Storage {
  constructor(private readonly openForWriting: OpenForWriting = open) {}

  async glob(pattern: string): Promise<string[]> {
    if (!hasWildcard(pattern)) return (await this.isFile(pattern)) ? [pattern] : [];
    const prefix = literalPrefix(pattern);
    const slash = prefix.lastIndexOf("/");
    // Matches are built as `${base}/${relative}` so they compare equal to the pattern as written.
    const base = slash < 0 ? "" : prefix.slice(0, slash);
    const rest = pattern.slice(slash + 1);
    const depth = rest.includes("**") ? Infinity : rest.split("/").length;
    const re = globToRegExp(pattern);
    const found: string[] = [];
    await walk(slash < 0 ? "." : base || "/", slash < 0 ? "" : `${base}/`, depth, (path) => {
      if (re.test(path)) found.push(path);
    });
    return found.sort();
  }

  async isFile(path: string): Promise<boolean> {
    try {
      return (await stat(path)).isFile();
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  async size(path: string): Promise<number> {
    return (await stat(path)).size;
  }

  read(path: string, range: ReadRange = {}): AsyncIterable<Uint8Array> {
    const { start = 0, end } = range;
    if (end !== undefined && end <= start) return (async function* () {})();
    // fs streams take an inclusive end.
    return createReadStream(path, { start, end: end === undefined ? undefined : end - 1, highWaterMark: READ_CHUNK_BYTES });
  }

  async readAll(path: string): Promise<Uint8Array> {
    return readFile(path);
  }

  async createWriter(path: string): Promise<AtomicWriter> {
    await mkdir(dirname(path), { recursive: true });
    const temp = `${dirname(path)}/.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
    const handle = await this.openForWriting(temp, "wx");
    let closed = false;
    return {
      async write(chunk) {
        // A write may store fewer bytes than asked (a disk filling up does that before it fails).
        let done = 0;
        try {
          while (done < chunk.length) {
            const { bytesWritten } = await handle.write(chunk, done, chunk.length - done);
            if (bytesWritten === 0) throw Object.assign(new Error("the file system accepted no bytes"), { code: "ENOSPC" });
            done += bytesWritten;
          }
        } catch (e) {
          throw diskFull(e, path, chunk.length - done);
        }
      },
      async commit() {
        // Flush before renaming: otherwise a crash could leave the final name pointing at lost data.
        try {
          await handle.sync();
        } catch (e) {
          throw diskFull(e, path, undefined);
        }
        await handle.close();
        closed = true;
        await rename(temp, path);
      },
      async abort() {
        if (!closed) await handle.close();
        closed = true;
        await rm(temp, { force: true });
      },
    };
  }

  async writeAtomic(path: string, data: Uint8Array): Promise<void> {
    await writeAllAtomically(await this.createWriter(path), data);
  }

  async remove(path: string): Promise<void> {
    await rm(path, { force: true });
  }

  async staleTemporaries(dir: string): Promise<string[]> {
    try {
      return (await readdir(dir)).filter((n) => TEMP_NAME.test(n)).map((n) => `${dir}/${n}`);
    } catch (e) {
      if (isNotFound(e)) return [];
      throw e;
    }
  }
}

/** Visits files under `dir` up to `depth` levels deep, reporting each as `${prefix}${relative path}`. */
async function walk(dir: string, prefix: string, depth: number, visit: (path: string) => void): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if (isNotFound(e)) return;
    throw e;
  }
  for (const entry of entries) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory()) {
      if (depth > 1) await walk(`${dir}/${entry.name}`, `${path}/`, depth - 1, visit);
    } else if (entry.isFile() || entry.isSymbolicLink()) visit(path);
  }
}

/** ENOSPC as one message naming the file and the space it still needed; other errors pass through. */
function diskFull(e: unknown, path: string, bytesNeeded: number | undefined): unknown {
  if ((e as NodeJS.ErrnoException).code !== "ENOSPC") return e;
  const need =
    bytesNeeded === undefined ? "" : `: ${bytesNeeded} more bytes (${(bytesNeeded / 2 ** 20).toFixed(1)} MiB) were needed for it`;
  return Object.assign(new Error(`no space left on the device to write ${path}${need}. Free up space there, or write to another place.`), {
    code: "ENOSPC",
  });
}

function isNotFound(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "ENOTDIR";
}
