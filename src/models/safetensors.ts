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

export function decodeSafetensors(
  buf: Buffer,
  where = "safetensors data",
): { tensors: Record<string, NamedTensor>; metadata: Record<string, string> } {
  if (buf.length < 8) throw new Error(`${where}: file too short (${buf.length} bytes) to be safetensors`);
  const n = Number(buf.readBigUInt64LE(0));
  if (8 + n > buf.length)
    throw new Error(
      `${where}: header length ${n} runs past the end of the file (${buf.length} bytes); the file is truncated or not safetensors`,
    );
  let header: Record<string, any>;
  try {
    header = JSON.parse(buf.subarray(8, 8 + n).toString("utf8"));
  } catch (e) {
    throw new Error(`${where}: header is not valid JSON (${(e as Error).message})`);
  }
  const dataStart = 8 + n,
    dataLen = buf.length - dataStart;
  const tensors: Record<string, NamedTensor> = {};
  for (const [name, info] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    const dtype = FROM_ST[info.dtype];
    if (!dtype) throw new Error(`${where}: tensor "${name}" has unsupported dtype ${info.dtype}`);
    const [begin, end] = info.data_offsets as [number, number];
    const shape = info.shape as number[];
    const count = sizeOf(shape);
    if (!(begin >= 0 && end <= dataLen && end - begin === count * itemSize(dtype))) {
      throw new Error(
        `${where}: tensor "${name}" (${info.dtype}${fmtShape(shape)}) has bad data offsets [${begin}, ${end}] for ${dataLen} data bytes`,
      );
    }
    // Copy into an aligned buffer: typed arrays need element-aligned offsets.
    const bytes = new Uint8Array(end - begin);
    bytes.set(buf.subarray(dataStart + begin, dataStart + end));
    tensors[name] = { dtype, shape, data: viewHost(dtype, bytes.buffer, 0, count) };
  }
  return { tensors, metadata: (header.__metadata__ ?? {}) as Record<string, string> };
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
