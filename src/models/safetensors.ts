// The safetensors format: an 8-byte little-endian header length, a JSON header mapping names to
// {dtype, shape, data_offsets} (offsets relative to the end of the header), then the raw bytes.
// Written atomically (temp file + rename), read with every offset checked.
import { readFile } from "node:fs/promises";
import { writeFileAtomic } from "../io/atomic-file.js";
import type { DType, HostArray } from "../core/dtype.js";
import { itemSize, viewHost } from "../core/dtype.js";
import { fmtShape, sizeOf } from "../core/shape.js";

export interface NamedTensor {
  dtype: DType;
  shape: number[];
  data: HostArray;
}

const TO_ST: Record<DType, string> = { f32: "F32", f64: "F64", bf16: "BF16", f16: "F16", i32: "I32", u32: "U32", bool: "BOOL", i64: "I64" };
const FROM_ST: Record<string, DType> = Object.fromEntries(Object.entries(TO_ST).map(([k, v]) => [v, k as DType]));

/** Serializes tensors (sorted by name, as the reference implementation does) with optional metadata. */
export function encodeSafetensors(tensors: Record<string, NamedTensor>, metadata?: Record<string, string>): Buffer {
  const names = Object.keys(tensors).sort();
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  for (const name of names) {
    const t = tensors[name]!;
    if (sizeOf(t.shape) !== t.data.length)
      throw new Error(`safetensors: "${name}" has ${t.data.length} elements but shape ${fmtShape(t.shape)}`);
    const bytes = t.data.length * itemSize(t.dtype);
    header[name] = { dtype: TO_ST[t.dtype], shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  // Pad the header with spaces to a multiple of 8 bytes so the data that follows is aligned.
  let json = Buffer.from(JSON.stringify(header), "utf8");
  const padded = Math.ceil(json.length / 8) * 8;
  json = Buffer.concat([json, Buffer.alloc(padded - json.length, 0x20)]);
  const out = Buffer.alloc(8 + json.length + offset);
  out.writeBigUInt64LE(BigInt(json.length), 0);
  json.copy(out, 8);
  let at = 8 + json.length;
  for (const name of names) {
    const d = tensors[name]!.data;
    Buffer.from(d.buffer, d.byteOffset, d.byteLength).copy(out, at);
    at += d.byteLength;
  }
  return out;
}

/** Where one tensor's bytes lie in a safetensors file (offsets from the start of the file). */
export interface TensorRange {
  name: string;
  dtype: DType;
  shape: number[];
  begin: number;
  end: number;
}

/** The bytes a valid file can hold: a header longer than this (safetensors' own cap) is refused unread. */
const MAX_HEADER_BYTES = 100 * 2 ** 20;

/**
 * The header of a safetensors file, every field checked before anything is sized from it: a JSON object of
 * tensors (known dtype, shape of non-negative integers, data offsets matching the shape and inside the
 * file, no two tensors sharing bytes) and string metadata. A damaged or hostile file gets an error naming
 * `where` and the tensor, never a crash or an allocation beyond the file's own size.
 */
export function safetensorsLayout(
  buf: Uint8Array,
  where = "safetensors data",
): { tensors: TensorRange[]; metadata: Record<string, string>; dataStart: number } {
  const fail = (what: string): never => {
    throw new Error(`${where}: ${what}`);
  };
  if (buf.length < 8) fail(`file too short (${buf.length} bytes) to be safetensors`);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const n = view.getBigUint64(0, true);
  if (n > BigInt(buf.length - 8))
    fail(`header length ${n} runs past the end of the file (${buf.length} bytes); the file is truncated or not safetensors`);
  if (n > BigInt(MAX_HEADER_BYTES)) fail(`header length ${n} is over the ${MAX_HEADER_BYTES} bytes safetensors allows`);
  const dataStart = 8 + Number(n),
    dataLen = buf.length - dataStart;
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(buf.subarray(8, dataStart)));
  } catch (e) {
    return fail(`header is not valid JSON (${(e as Error).message})`);
  }
  if (header === null || typeof header !== "object" || Array.isArray(header)) return fail("header is not a JSON object");
  const metadata: Record<string, string> = {};
  const tensors: TensorRange[] = [];
  for (const [name, info] of Object.entries(header as Record<string, unknown>)) {
    if (name === "__metadata__") {
      if (info === null || typeof info !== "object" || Array.isArray(info)) fail(`"__metadata__" is not an object of strings`);
      for (const [key, value] of Object.entries(info as Record<string, unknown>)) {
        if (typeof value !== "string") fail(`"__metadata__" entry "${key}" is ${JSON.stringify(value)}, not a string`);
        metadata[key] = value as string;
      }
      continue;
    }
    const tensor = `tensor ${JSON.stringify(name)}`;
    if (info === null || typeof info !== "object" || Array.isArray(info)) return fail(`${tensor} is not an object`);
    const { dtype: stDtype, shape, data_offsets: offsets } = info as Record<string, unknown>;
    const dtype = typeof stDtype === "string" ? FROM_ST[stDtype] : undefined;
    if (!dtype || !Object.hasOwn(FROM_ST, stDtype as string)) return fail(`${tensor} has unsupported dtype ${JSON.stringify(stDtype)}`);
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0))
      return fail(`${tensor} has shape ${JSON.stringify(shape)}, not a list of non-negative integers`);
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0))
      return fail(`${tensor} has data_offsets ${JSON.stringify(offsets)}, not two non-negative integers`);
    const [begin, end] = offsets as [number, number];
    // The element count is compared through the byte count it implies, so a huge shape cannot overflow.
    let bytes = itemSize(dtype);
    for (const d of shape as number[]) bytes *= d;
    if (!(begin <= end && end <= dataLen && end - begin === bytes))
      fail(`${tensor} (${stDtype}${fmtShape(shape as number[])}) has bad data offsets [${begin}, ${end}] for ${dataLen} data bytes`);
    tensors.push({ name, dtype, shape: shape as number[], begin: dataStart + begin, end: dataStart + end });
  }
  const byOffset = [...tensors].sort((a, b) => a.begin - b.begin || a.end - b.end);
  for (let i = 1; i < byOffset.length; i++) {
    const [a, b] = [byOffset[i - 1]!, byOffset[i]!];
    if (b.begin < a.end) fail(`tensors ${JSON.stringify(a.name)} and ${JSON.stringify(b.name)} share data bytes`);
  }
  return { tensors, metadata, dataStart };
}

export function decodeSafetensors(
  buf: Buffer,
  where = "safetensors data",
): { tensors: Record<string, NamedTensor>; metadata: Record<string, string> } {
  const layout = safetensorsLayout(buf, where);
  const tensors: Record<string, NamedTensor> = {};
  for (const { name, dtype, shape, begin, end } of layout.tensors) {
    // Copy into an aligned buffer: typed arrays need element-aligned offsets.
    const bytes = new Uint8Array(end - begin);
    bytes.set(buf.subarray(begin, end));
    const tensor: NamedTensor = { dtype, shape, data: viewHost(dtype, bytes.buffer, 0, sizeOf(shape)) };
    // Defined, not assigned: a tensor named "__proto__" is an entry like any other, not the object's prototype.
    Object.defineProperty(tensors, name, { value: tensor, enumerable: true, writable: true, configurable: true });
  }
  return { tensors, metadata: layout.metadata };
}

/** Writes atomically: a crash leaves either the old file or the new one, never a torn file. */
export async function writeSafetensors(
  path: string,
  tensors: Record<string, NamedTensor>,
  metadata?: Record<string, string>,
): Promise<void> {
  await writeFileAtomic(path, encodeSafetensors(tensors, metadata));
}

export async function readSafetensors(path: string) {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as Error).message}`);
  }
  return decodeSafetensors(buf, path);
}
