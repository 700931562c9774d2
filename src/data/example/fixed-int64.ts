// The fast path for the records Kiln trains on: a tf.train.Example whose features are fixed-length
// int64 lists (e.g. input_ids and attention_mask), held as int32 in memory. Encoding writes the exact
// bytes `encodeExample` would (sorted keys, packed lists) in one pass; parsing writes the values
// straight into the rows of preallocated Int32Arrays.
import { exampleError } from "./example.js";

/** A fixed-length int64 feature: its name and length. */
export interface FixedFeatureSpec {
  name: string;
  length: number;
}

const utf8 = new TextEncoder();

function int32VarintSize(v: number): number {
  if (v < 0) return 10;
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  return 5;
}

function uvarintSize(v: number): number {
  return int32VarintSize(v); // lengths here are below 2^31
}

function putUvarint(buf: Uint8Array, p: number, v: number): number {
  while (v >= 0x80) {
    buf[p++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[p++] = v;
  return p;
}

function putInt32AsInt64(buf: Uint8Array, p: number, v: number): number {
  if (v >= 0) return putUvarint(buf, p, v);
  let u = v >>> 0;
  for (let i = 0; i < 4; i++) {
    buf[p++] = (u & 0x7f) | 0x80;
    u >>>= 7;
  }
  buf[p++] = (u & 0x0f) | 0xf0; // top 4 bits of the low word, then sign-extension ones
  for (let i = 0; i < 4; i++) buf[p++] = 0xff;
  buf[p++] = 0x01;
  return p;
}

/** Encodes examples made of fixed-length int64 features from int32 values. */
export class FixedInt64Encoder {
  private readonly order: number[];
  private readonly names: Uint8Array[];
  /** Scratch: payload size of each feature in key order. */
  private readonly payloads: number[];

  constructor(readonly specs: readonly FixedFeatureSpec[]) {
    this.names = specs.map((s) => utf8.encode(s.name));
    // Keys in UTF-8 byte order, as deterministic protobuf serialization writes map entries.
    this.order = specs.map((_, i) => i).sort((a, b) => Buffer.compare(this.names[a]!, this.names[b]!));
    this.payloads = specs.map(() => 0);
  }

  /** An upper bound on the serialized size of one example, for sizing output buffers. */
  maxSize(): number {
    let features = 0;
    for (let k = 0; k < this.specs.length; k++) {
      const entry = this.entrySize(k, 10 * this.specs[k]!.length); // a varint takes at most 10 bytes
      features += 1 + uvarintSize(entry) + entry;
    }
    return 1 + uvarintSize(features) + features;
  }

  /**
   * Writes the example whose feature k is `values[k].subarray(offset, offset + length_k)` into `out`
   * at `p` (which needs `maxSize()` bytes free); returns the offset just past it.
   */
  encodeInto(values: readonly Int32Array[], offset: number, out: Uint8Array, p: number): number {
    const payloads = this.payloads;
    let features = 0;
    for (let i = 0; i < this.order.length; i++) {
      const k = this.order[i]!;
      payloads[i] = this.payloadSize(values[k]!, offset, this.specs[k]!.length);
      const entry = this.entrySize(k, payloads[i]!);
      features += 1 + uvarintSize(entry) + entry;
    }
    out[p++] = 0x0a; // Example.features
    p = putUvarint(out, p, features);
    for (let i = 0; i < this.order.length; i++) {
      const k = this.order[i]!;
      const name = this.names[k]!;
      const payload = payloads[i]!;
      const list = listSize(payload);
      const feature = 1 + uvarintSize(list) + list;
      out[p++] = 0x0a; // Features.feature map entry
      p = putUvarint(out, p, this.entrySize(k, payload));
      out[p++] = 0x0a; // entry key
      p = putUvarint(out, p, name.length);
      out.set(name, p);
      p += name.length;
      out[p++] = 0x12; // entry value: Feature
      p = putUvarint(out, p, feature);
      out[p++] = 0x1a; // Feature.int64_list
      p = putUvarint(out, p, list);
      if (payload > 0) {
        out[p++] = 0x0a; // Int64List.value, packed
        p = putUvarint(out, p, payload);
        const v = values[k]!;
        for (let j = offset, end = offset + this.specs[k]!.length; j < end; j++) p = putInt32AsInt64(out, p, v[j]!);
      }
    }
    return p;
  }

  /** One example as a fresh buffer. */
  encode(values: readonly Int32Array[], offset = 0): Uint8Array {
    const out = new Uint8Array(this.maxSize());
    return out.slice(0, this.encodeInto(values, offset, out, 0));
  }

  private payloadSize(v: Int32Array, offset: number, length: number): number {
    if (offset + length > v.length) throw new RangeError(`feature values end at ${v.length}, before ${offset + length}`);
    let n = 0;
    for (let j = offset, end = offset + length; j < end; j++) n += int32VarintSize(v[j]!);
    return n;
  }

  private entrySize(k: number, payload: number): number {
    const name = this.names[k]!.length;
    const list = listSize(payload);
    const feature = 1 + uvarintSize(list) + list;
    return 1 + uvarintSize(name) + name + 1 + uvarintSize(feature) + feature;
  }
}

function listSize(payload: number): number {
  return payload === 0 ? 0 : 1 + uvarintSize(payload) + payload;
}

/** A record that parses as protobuf but does not have the features asked for. */
export class FeatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FeatureError";
  }
}

/**
 * Parses the fixed-length int64 features of serialized examples into rows of Int32Arrays. Other
 * features are skipped; a missing feature, a wrong length, or a value outside int32 is an error.
 */
export class FixedInt64Parser {
  private readonly names: Uint8Array[];
  private readonly seen: Uint8Array;
  private pos = 0;

  constructor(readonly specs: readonly FixedFeatureSpec[]) {
    this.names = specs.map((s) => utf8.encode(s.name));
    this.seen = new Uint8Array(specs.length);
  }

  /** Parses `record`, writing feature k's values to `outs[k]` starting at `row * length_k`. */
  parse(record: Uint8Array, outs: readonly Int32Array[], row: number): void {
    this.seen.fill(0);
    const end = record.length;
    this.pos = 0;
    while (this.pos < end) {
      const tag = this.varint32(record, end);
      if (tag === 0x0a) {
        const fEnd = this.lengthEnd(record, end);
        this.parseFeatures(record, fEnd, outs, row);
      } else this.skip(record, end, tag);
    }
    for (let k = 0; k < this.specs.length; k++) {
      if (!this.seen[k]) throw new FeatureError(`record has no feature "${this.specs[k]!.name}"`);
    }
  }

  private parseFeatures(buf: Uint8Array, end: number, outs: readonly Int32Array[], row: number): void {
    while (this.pos < end) {
      const tag = this.varint32(buf, end);
      if (tag !== 0x0a) {
        this.skip(buf, end, tag);
        continue;
      }
      const entryEnd = this.lengthEnd(buf, end);
      let k = -1;
      let valueStart = -1;
      let valueEnd = -1;
      while (this.pos < entryEnd) {
        const t = this.varint32(buf, entryEnd);
        if (t === 0x0a) {
          const keyEnd = this.lengthEnd(buf, entryEnd);
          k = this.match(buf, this.pos, keyEnd);
          this.pos = keyEnd;
        } else if (t === 0x12) {
          valueEnd = this.lengthEnd(buf, entryEnd);
          valueStart = this.pos;
          this.pos = valueEnd;
        } else this.skip(buf, entryEnd, t);
      }
      if (k >= 0) {
        const length = this.specs[k]!.length;
        const n = valueStart < 0 ? 0 : this.parseFeature(buf, valueStart, valueEnd, outs[k]!, row * length, k);
        if (n !== length) throw new FeatureError(`feature "${this.specs[k]!.name}" has ${n} int64 values, expected ${length}`);
        this.seen[k] = 1;
        this.pos = entryEnd;
      }
    }
  }

  private parseFeature(buf: Uint8Array, start: number, end: number, out: Int32Array, at: number, k: number): number {
    const length = this.specs[k]!.length;
    this.pos = start;
    let n = 0;
    let sawList = false;
    while (this.pos < end) {
      const tag = this.varint32(buf, end);
      if (tag === 0x1a) {
        sawList = true;
        n = 0; // a repeated oneof field: the last one wins
        const listEnd = this.lengthEnd(buf, end);
        while (this.pos < listEnd) {
          const t = this.varint32(buf, listEnd);
          if (t === 0x0a) {
            const packedEnd = this.lengthEnd(buf, listEnd);
            n = this.packed(buf, packedEnd, out, at, n, length);
          } else if (t === 0x08) n = this.value(buf, listEnd, out, at, n, length);
          else this.skip(buf, listEnd, t);
        }
      } else if (tag === 0x0a || tag === 0x12) {
        const other = tag === 0x0a ? "bytes_list" : "float_list";
        throw new FeatureError(`feature "${this.specs[k]!.name}" is a ${other}, expected an int64_list`);
      } else this.skip(buf, end, tag);
    }
    return sawList ? n : 0;
  }

  /**
   * Reads a packed run of int64 varints ending at `end` (the hot loop of reading a dataset): values
   * below 2^28, every token id, are decoded inline; anything longer goes through int64AsInt32.
   */
  private packed(buf: Uint8Array, end: number, out: Int32Array, at: number, n: number, length: number): number {
    let p = this.pos;
    while (p < end) {
      let b = buf[p]!;
      let v = b;
      if (b < 0x80) p += 1;
      else if (p + 4 <= end) {
        v = b & 0x7f;
        b = buf[p + 1]!;
        v |= (b & 0x7f) << 7;
        if (b < 0x80) p += 2;
        else {
          b = buf[p + 2]!;
          v |= (b & 0x7f) << 14;
          if (b < 0x80) p += 3;
          else {
            b = buf[p + 3]!;
            v |= (b & 0x7f) << 21;
            if (b < 0x80) p += 4;
            else {
              this.pos = p;
              v = this.int64AsInt32(buf, end);
              p = this.pos;
            }
          }
        }
      } else {
        this.pos = p;
        v = this.int64AsInt32(buf, end);
        p = this.pos;
      }
      if (n < length) out[at + n] = v;
      n++;
    }
    this.pos = p;
    return n;
  }

  private value(buf: Uint8Array, end: number, out: Int32Array, at: number, n: number, length: number): number {
    const v = this.int64AsInt32(buf, end);
    if (n < length) out[at + n] = v;
    return n + 1;
  }

  private match(buf: Uint8Array, start: number, end: number): number {
    const len = end - start;
    outer: for (let k = 0; k < this.names.length; k++) {
      const name = this.names[k]!;
      if (name.length !== len) continue;
      for (let i = 0; i < len; i++) if (buf[start + i] !== name[i]) continue outer;
      return k;
    }
    return -1;
  }

  /** Reads a length prefix at `pos`; leaves `pos` at the body start and returns the body end. */
  private lengthEnd(buf: Uint8Array, end: number): number {
    const at = this.pos;
    const len = this.varint32(buf, end);
    const start = this.pos;
    if (len > end - start) throw exampleError(at, `field length ${len} runs past the end of its message`);
    return start + len;
  }

  /** A varint below 2^31 (tags and lengths). */
  private varint32(buf: Uint8Array, end: number): number {
    const p = this.pos;
    // Tags and most lengths take one or two bytes.
    if (p + 2 <= end) {
      const b0 = buf[p]!;
      if (b0 < 0x80) {
        this.pos = p + 1;
        return b0;
      }
      const b1 = buf[p + 1]!;
      if (b1 < 0x80) {
        this.pos = p + 2;
        return (b0 & 0x7f) | (b1 << 7);
      }
    }
    return this.varint32Slow(buf, end);
  }

  private varint32Slow(buf: Uint8Array, end: number): number {
    const at = this.pos;
    let p = at;
    let v = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (p >= end) throw exampleError(at, "varint runs past the end of its message");
      const b = buf[p++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) {
        if (v > 0x7fffffff) break;
        this.pos = p;
        return v;
      }
    }
    throw exampleError(at, "tag or length varint is too large");
  }

  /** An int64 varint that must fit in int32. */
  private int64AsInt32(buf: Uint8Array, end: number): number {
    const at = this.pos;
    // Fast path: non-negative values below 2^28 (every token id) take at most four bytes.
    if (at + 4 <= end) {
      let b = buf[at]!;
      if (b < 0x80) {
        this.pos = at + 1;
        return b;
      }
      let v = b & 0x7f;
      b = buf[at + 1]!;
      v |= (b & 0x7f) << 7;
      if (b < 0x80) {
        this.pos = at + 2;
        return v;
      }
      b = buf[at + 2]!;
      v |= (b & 0x7f) << 14;
      if (b < 0x80) {
        this.pos = at + 3;
        return v;
      }
      b = buf[at + 3]!;
      v |= (b & 0x7f) << 21;
      if (b < 0x80) {
        this.pos = at + 4;
        return v;
      }
    }
    // General path: assemble the low and high 32-bit words of the 64-bit value.
    let lo = 0;
    let hi = 0;
    let p = at;
    for (let i = 0; i < 10; i++) {
      if (p >= end) throw exampleError(at, "int64 value runs past the end of its list");
      const b = buf[p++]!;
      const bits = b & 0x7f;
      const shift = i * 7;
      if (shift < 32) {
        lo |= bits << shift;
        if (shift > 25) hi |= bits >>> (32 - shift);
      } else hi |= bits << (shift - 32);
      if (b < 0x80) {
        this.pos = p;
        lo >>>= 0;
        hi >>>= 0;
        if (hi === 0 && lo < 0x80000000) return lo;
        if (hi === 0xffffffff && lo >= 0x80000000) return lo | 0;
        throw new FeatureError(`int64 value ${BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo))} does not fit in int32`);
      }
    }
    throw exampleError(at, "int64 varint longer than ten bytes");
  }

  private skip(buf: Uint8Array, end: number, tag: number): void {
    switch (tag & 7) {
      case 0:
        this.int64Skip(buf, end);
        return;
      case 1:
        this.advance(end, 8);
        return;
      case 2:
        this.pos = this.lengthEnd(buf, end);
        return;
      case 5:
        this.advance(end, 4);
        return;
      default:
        throw exampleError(this.pos, `unsupported wire type ${tag & 7}`);
    }
  }

  private int64Skip(buf: Uint8Array, end: number): void {
    const at = this.pos;
    for (let p = at; p < end && p < at + 10; p++) {
      if (buf[p]! < 0x80) {
        this.pos = p + 1;
        return;
      }
    }
    throw exampleError(at, "malformed varint");
  }

  private advance(end: number, n: number): void {
    if (this.pos + n > end) throw exampleError(this.pos, `${n}-byte field runs past the end of its message`);
    this.pos += n;
  }
}
