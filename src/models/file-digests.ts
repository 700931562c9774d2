// `checksums.json`: the SHA-256 of every file a model or checkpoint directory holds, written last, so that
// a byte changed on disk afterwards (a bad sector, a copy that went wrong, a hand edit) is found when the
// directory is loaded instead of being trained on or served. A safetensors file is hashed in parts (its
// header, each tensor's bytes, any bytes between them) and its digest is the SHA-256 of those parts'
// digests: every byte is hashed once, on write and on check, and a change is named down to the tensor.
import { createHash } from "node:crypto";
import { readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { writeJsonAtomic } from "../io/atomic-file.js";
import { safetensorsLayout } from "./safetensors.js";

export const CHECKSUMS_FILE = "checksums.json";

const FORMAT = "kiln-checksums/1";

export interface FileDigest {
  bytes: number;
  /** The file's SHA-256; for a safetensors file, the SHA-256 of its parts' digests below. */
  sha256: string;
  /** A safetensors file's parts: the SHA-256 of its header (with the length before it) and of each tensor's bytes. */
  header?: string;
  tensors?: Record<string, string>;
  /** Of the bytes no tensor covers (none in a file Kiln writes). */
  gaps?: string;
}

export interface ChecksumManifest {
  format: typeof FORMAT;
  files: Record<string, FileDigest>;
  /** The SHA-256 of `files` as JSON: a change to the manifest itself is found too. */
  sha256: string;
}

/** A file whose bytes are not the ones its directory's checksums.json recorded. */
export class CorruptFileError extends Error {
  constructor(
    readonly file: string,
    what: string,
    remedy: string,
    /** The tensors of a safetensors file whose bytes changed, where they could be told. */
    readonly tensors: string[] = [],
  ) {
    super(`${file} is damaged: ${what}. ${remedy}`);
    this.name = "CorruptFileError";
  }
}

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

interface Parts {
  header: string;
  tensors: Record<string, string>;
  gaps: string;
}

/** The digests of a safetensors file's parts, or undefined where its header cannot be read. */
function safetensorsParts(data: Uint8Array): Parts | undefined {
  let layout: ReturnType<typeof safetensorsLayout>;
  try {
    layout = safetensorsLayout(data);
  } catch {
    return undefined;
  }
  const tensors: Record<string, string> = {};
  const gaps = createHash("sha256");
  let at = layout.dataStart;
  for (const t of [...layout.tensors].sort((a, b) => a.begin - b.begin)) {
    tensors[t.name] = sha256(data.subarray(t.begin, t.end));
    if (t.begin > at) gaps.update(`${at}:`).update(data.subarray(at, t.begin));
    at = t.end;
  }
  if (data.length > at) gaps.update(`${at}:`).update(data.subarray(at));
  return { header: sha256(data.subarray(0, layout.dataStart)), tensors, gaps: gaps.digest("hex") };
}

/** The file digest of a safetensors file's parts: names sorted, so it does not depend on the order found. */
function digestOfParts(p: Parts): string {
  const lines = [
    `header ${p.header}`,
    ...Object.keys(p.tensors)
      .sort()
      .map((n) => `tensor ${JSON.stringify(n)} ${p.tensors[n]}`),
    `gaps ${p.gaps}`,
  ];
  return sha256(Buffer.from(lines.join("\n")));
}

/** The digest of one file's bytes; a file named *.safetensors (with a readable header) is hashed in parts. */
export function fileDigest(name: string, data: Uint8Array): FileDigest {
  const parts = name.endsWith(".safetensors") ? safetensorsParts(data) : undefined;
  if (!parts) return { bytes: data.byteLength, sha256: sha256(data) };
  return { bytes: data.byteLength, sha256: digestOfParts(parts), ...parts };
}

/**
 * Writes `dir/checksums.json` for the files `names` (relative to dir), read back from disk: call it once
 * they are all written. With `merge`, digests already recorded for other files are kept.
 */
export async function writeChecksums(dir: string, names: readonly string[], o: { merge?: boolean } = {}): Promise<void> {
  const files: Record<string, FileDigest> = o.merge ? { ...(await readChecksums(dir))?.files } : {};
  for (const name of names) files[name] = fileDigest(name, await readFile(join(dir, name)));
  const sorted = Object.fromEntries(Object.entries(files).sort());
  const manifest: ChecksumManifest = { format: FORMAT, files: sorted, sha256: digestOfManifest(sorted) };
  await writeJsonAtomic(join(dir, CHECKSUMS_FILE), manifest);
}

/** The digest of a manifest's file entries, in name order (JSON objects keep no reliable key order). */
function digestOfManifest(files: Record<string, FileDigest>): string {
  return sha256(Buffer.from(JSON.stringify(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))));
}

/** Removes a directory's checksums.json before its files are rewritten, so a stopped rewrite is never judged by old digests. */
export async function dropChecksums(dir: string): Promise<void> {
  await rm(join(dir, CHECKSUMS_FILE), { force: true });
}

/** A directory's checksums.json, or undefined where there is none (written by transformers, or by an older Kiln). */
export async function readChecksums(dir: string, remedy = ""): Promise<ChecksumManifest | undefined> {
  const path = join(dir, CHECKSUMS_FILE);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot read ${path}: ${(e as Error).message}`);
  }
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch (e) {
    throw new CorruptFileError(path, `not valid JSON (${(e as Error).message})`, remedy);
  }
  const files = (m as ChecksumManifest | null)?.files;
  if ((m as ChecksumManifest | null)?.format !== FORMAT || files === null || typeof files !== "object" || Array.isArray(files))
    throw new CorruptFileError(path, `not a ${FORMAT} manifest of file digests`, remedy);
  if (digestOfManifest(files) !== (m as ChecksumManifest).sha256)
    throw new CorruptFileError(path, "its own digest does not match the digests it lists", remedy);
  for (const [name, d] of Object.entries(files)) {
    // Names of files beside checksums.json only: a manifest never sends a reader out of its directory.
    if (!/^[^/\\]+$/.test(name) || name === "." || name === "..")
      throw new CorruptFileError(path, `it lists ${JSON.stringify(name)}, which is not a file name in ${dir}`, remedy);
    if (!d || typeof d.sha256 !== "string" || !Number.isSafeInteger(d.bytes))
      throw new CorruptFileError(path, `its entry for ${JSON.stringify(name)} has no sha256 and byte count`, remedy);
  }
  return m as ChecksumManifest;
}

/** Refuses `data`, the bytes of `path`, where they differ from `want`, naming the tensors that changed. */
export function checkDigest(path: string, data: Uint8Array, want: FileDigest, remedy: string): void {
  if (data.byteLength !== want.bytes)
    throw new CorruptFileError(
      path,
      `it is ${data.byteLength} bytes, but ${CHECKSUMS_FILE} recorded ${want.bytes} (cut short or replaced)`,
      remedy,
    );
  if (!want.tensors) {
    if (sha256(data) === want.sha256) return;
    throw new CorruptFileError(path, `its SHA-256 differs from the one ${CHECKSUMS_FILE} recorded`, remedy);
  }
  const now = safetensorsParts(data);
  if (!now || now.header !== want.header)
    throw new CorruptFileError(path, "its header (the tensor names, shapes and offsets) changed", remedy);
  const recorded = Object.keys(want.tensors);
  const changed = recorded.filter((t) => now.tensors[t] !== want.tensors![t]);
  if (changed.length === 0) {
    if (now.gaps !== want.gaps) throw new CorruptFileError(path, "bytes outside every tensor changed", remedy);
    if (digestOfParts(now) === want.sha256) return;
    throw new CorruptFileError(path, `its digest differs from the one ${CHECKSUMS_FILE} recorded`, remedy);
  }
  const shown =
    changed
      .slice(0, 5)
      .map((t) => `"${t}"`)
      .join(", ") + (changed.length > 5 ? `, … (${changed.length} tensors)` : "");
  throw new CorruptFileError(path, `the bytes of tensor${changed.length === 1 ? "" : "s"} ${shown} changed`, remedy, changed);
}

/**
 * Reads `dir/name`, checked against `manifest` when it records the file (otherwise read as is). A file
 * the manifest records that is missing is an error too.
 */
export async function readChecked(dir: string, name: string, manifest: ChecksumManifest | undefined, remedy: string): Promise<Buffer> {
  const path = join(dir, name);
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (e) {
    if (manifest?.files[name] && (e as NodeJS.ErrnoException).code === "ENOENT")
      throw new CorruptFileError(path, `it is missing, but ${CHECKSUMS_FILE} lists it`, remedy);
    throw new Error(`cannot read ${path}: ${(e as Error).message}`);
  }
  const want = manifest && Object.hasOwn(manifest.files, name) ? manifest.files[name] : undefined;
  if (want) checkDigest(path, data, want, remedy);
  return data;
}

export interface DirectoryCheck {
  /** The files checked and found whole. */
  ok: string[];
  /** The files that are damaged or missing, each with why. */
  damaged: CorruptFileError[];
  /** Whether the directory had a checksums.json at all. */
  recorded: boolean;
}

/** Checks every file `dir`'s checksums.json lists (without stopping at the first damaged one). */
export async function checkDirectory(dir: string, remedy: string): Promise<DirectoryCheck> {
  let manifest: ChecksumManifest | undefined;
  try {
    manifest = await readChecksums(dir, remedy);
  } catch (e) {
    if (e instanceof CorruptFileError) return { ok: [], damaged: [e], recorded: true };
    throw e;
  }
  const out: DirectoryCheck = { ok: [], damaged: [], recorded: manifest !== undefined };
  for (const name of Object.keys(manifest?.files ?? {})) {
    try {
      await readChecked(dir, name, manifest, remedy);
      out.ok.push(name);
    } catch (e) {
      if (!(e instanceof CorruptFileError)) throw e;
      out.damaged.push(e);
    }
  }
  return out;
}

/** Whether `path` is a file (for the optional files of a directory). */
export async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
