// TFRecord framing, byte for byte as TensorFlow writes it:
//
//   uint64 length                       (little-endian)
//   uint32 masked_crc32c(length bytes)  (little-endian)
//   byte   data[length]
//   uint32 masked_crc32c(data)          (little-endian)
import { maskedCrc32c } from "./crc32c.js";

/** Bytes before the data: the length and its checksum. */
export const HEADER_BYTES = 12;
/** Bytes after the data: its checksum. */
export const FOOTER_BYTES = 4;

/** Size on disk of a record with `dataLength` bytes of data. */
export function framedLength(dataLength: number): number {
  return HEADER_BYTES + dataLength + FOOTER_BYTES;
}

/**
 * Writes the frame of `data` into `out` at `offset` (which must have framedLength(data.length) bytes
 * free) and returns the offset just past it. Writing in place lets a batch of records share one buffer.
 */
export function writeFrame(data: Uint8Array, out: Uint8Array, offset: number): number {
  out.set(data, offset + HEADER_BYTES);
  return frameInPlace(out, offset, data.length);
}

/**
 * Frames data that is already in place at `out[offset + HEADER_BYTES, + dataLength)`: writes the
 * header before it and the checksum after it, and returns the offset just past the frame. Lets a
 * serializer encode straight into the output buffer.
 */
export function frameInPlace(out: Uint8Array, offset: number, dataLength: number): number {
  // The u64 length as two little-endian words (lengths stay far below 2^53).
  writeU32(out, offset, dataLength >>> 0);
  writeU32(out, offset + 4, Math.floor(dataLength / 2 ** 32));
  writeU32(out, offset + 8, maskedCrc32c(out, offset, offset + 8));
  const end = offset + HEADER_BYTES + dataLength;
  writeU32(out, end, maskedCrc32c(out, offset + HEADER_BYTES, end));
  return end + FOOTER_BYTES;
}

/** The framed bytes of one record. */
export function frameRecord(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(framedLength(data.length));
  writeFrame(data, out, 0);
  return out;
}

/** The framed bytes of several records, concatenated. */
export function frameRecords(records: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const r of records) total += framedLength(r.length);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const r of records) offset = writeFrame(r, out, offset);
  return out;
}

export function writeU32(out: Uint8Array, offset: number, v: number): void {
  out[offset] = v & 0xff;
  out[offset + 1] = (v >>> 8) & 0xff;
  out[offset + 2] = (v >>> 16) & 0xff;
  out[offset + 3] = (v >>> 24) & 0xff;
}

export function readU32(buf: Uint8Array, offset: number): number {
  return (buf[offset]! | (buf[offset + 1]! << 8) | (buf[offset + 2]! << 16) | (buf[offset + 3]! << 24)) >>> 0;
}
