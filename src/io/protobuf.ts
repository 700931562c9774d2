// The protocol-buffer wire format, written and read by hand for the three kinds of message Kiln
// exchanges: tf.train.Example records and TensorBoard events (data/, train/), ONNX models (exec/ort,
// export/) and XLA's CompileOptionsProto (exec/xla). Encoding a message fills one growable buffer
// (nested messages are written in place and shifted right by their length prefix); decoding allocates
// nothing. Fields are written in the order they are given, so equal inputs give equal bytes.

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

/** What a reader's errors call the bytes it reads: the message type, and the unit that holds it. */
export interface ProtoErrorContext {
  readonly message: string;
  readonly unit: string;
}

const ANY_MESSAGE: ProtoErrorContext = { message: "protocol buffer", unit: "message" };

/** A malformed protocol buffer: says which message, where (byte offset within its unit) and what. */
export class ProtoError extends Error {
  constructor(
    readonly at: number,
    problem: string,
    context: ProtoErrorContext = ANY_MESSAGE,
  ) {
    super(`malformed ${context.message} at byte ${at} of the ${context.unit}: ${problem}`);
    this.name = "ProtoError";
  }
}

const utf8 = new TextEncoder();

/**
 * Growable output buffer with protobuf primitives: wire-level ones (tag, uvarint, bytes, …) and whole
 * fields (intField, stringField, nested, …).
 */
export class ProtoWriter {
  buf: Uint8Array;
  pos = 0;

  /** `initial`: bytes to reserve (a good guess saves the buffer's doublings for large messages). */
  constructor(initial = 256) {
    this.buf = new Uint8Array(initial);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** An unsigned varint of a non-negative integer below 2^53. */
  uvarint(v: number): void {
    this.ensure(10);
    const buf = this.buf;
    let p = this.pos;
    while (v >= 0x80) {
      buf[p++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    buf[p++] = v;
    this.pos = p;
  }

  /** A signed 64-bit integer as protobuf int64 (negative values take ten bytes, two's complement). */
  int64(v: bigint): void {
    let u = BigInt.asUintN(64, v);
    this.ensure(10);
    while (u >= 0x80n) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
  }

  /** A 32-bit signed integer as protobuf int64 (sign-extended, so negatives take ten bytes). */
  int64FromInt32(v: number): void {
    if (v >= 0) return this.uvarint(v);
    this.ensure(10);
    // Low 32 bits as five 7-bit groups (the fifth gets the top 4 bits plus sign-extension ones).
    let u = v >>> 0;
    for (let i = 0; i < 4; i++) {
      this.buf[this.pos++] = (u & 0x7f) | 0x80;
      u >>>= 7;
    }
    this.buf[this.pos++] = (u & 0x0f) | 0x70 | 0x80;
    for (let i = 0; i < 4; i++) this.buf[this.pos++] = 0xff;
    this.buf[this.pos++] = 0x01;
  }

  tag(field: number, wire: number): void {
    this.uvarint(field * 8 + wire);
  }

  bytes(data: Uint8Array): void {
    this.uvarint(data.length);
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  float32(v: number): void {
    this.ensure(4);
    new DataView(this.buf.buffer, this.buf.byteOffset).setFloat32(this.pos, v, true);
    this.pos += 4;
  }

  float64(v: number): void {
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset).setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  // ---- whole fields ----

  /** An int32/int64/uint64/enum field; negative values take ten bytes (64-bit two's complement). */
  intField(field: number, v: number | bigint): this {
    this.tag(field, WIRE_VARINT);
    if (typeof v === "bigint") this.int64(v);
    else if (!Number.isSafeInteger(v)) throw new RangeError(`protobuf: ${v} is not an integer that a varint carries exactly`);
    else if (v >= 0) this.uvarint(v);
    else this.int64(BigInt(v));
    return this;
  }

  boolField(field: number, v: boolean): this {
    return this.intField(field, v ? 1 : 0);
  }

  float32Field(field: number, v: number): this {
    this.tag(field, WIRE_FIXED32);
    this.float32(v);
    return this;
  }

  float64Field(field: number, v: number): this {
    this.tag(field, WIRE_FIXED64);
    this.float64(v);
    return this;
  }

  bytesField(field: number, data: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.bytes(data);
    return this;
  }

  stringField(field: number, s: string): this {
    // Names are mostly short ASCII: their bytes go straight into the buffer (no encoder, no allocation).
    // oxlint-disable-next-line no-control-regex -- the whole ASCII range, control characters included
    if (s.length < 128 && /^[\x00-\x7f]*$/.test(s)) {
      this.tag(field, WIRE_LEN);
      this.ensure(1 + s.length);
      this.buf[this.pos++] = s.length;
      for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
      return this;
    }
    return this.bytesField(field, utf8.encode(s));
  }

  /** A repeated integer field in the packed encoding (proto3's default). */
  packedInts(field: number, values: ArrayLike<number | bigint>): this {
    return this.nested(field, () => {
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        if (typeof v === "bigint" || v < 0) this.int64(BigInt(v));
        else this.uvarint(v);
      }
    });
  }

  /**
   * Writes a length-delimited field whose body is produced by `body`: the body is written first and
   * then moved right by the size of its length prefix.
   */
  nested(field: number, body: () => void): this {
    this.tag(field, WIRE_LEN);
    const start = this.pos;
    body();
    const len = this.pos - start;
    const prefix = varintSize(len);
    this.ensure(prefix);
    this.buf.copyWithin(start + prefix, start, this.pos);
    const end = this.pos + prefix;
    this.pos = start;
    this.uvarint(len);
    this.pos = end;
    return this;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

function varintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    n++;
  }
  return n;
}

/** Cursor over a protobuf message. Offsets in errors are relative to `origin`; `context` names the message in them. */
export class ProtoReader {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    start: number,
    readonly end: number,
    readonly origin = 0,
    readonly context: ProtoErrorContext = ANY_MESSAGE,
  ) {
    this.pos = start;
  }

  /** A reader over bytes [start, end) of the same buffer (an embedded message), reporting like this one. */
  sub(start: number, end: number): ProtoReader {
    return new ProtoReader(this.buf, start, end, this.origin, this.context);
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  fail(problem: string, at = this.pos): never {
    throw new ProtoError(at - this.origin, problem, this.context);
  }

  /** An unsigned varint that must fit in 53 bits (lengths and tags). */
  uvarint(): number {
    let result = 0;
    let scale = 1;
    const start = this.pos;
    for (let i = 0; i < 8; i++) {
      if (this.pos >= this.end) this.fail("varint runs past the end of the message", start);
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 0x80;
    }
    return this.fail("varint too long for a length or tag", start);
  }

  /** A protobuf int64 varint as a bigint. */
  int64(): bigint {
    let result = 0n;
    let shift = 0n;
    const start = this.pos;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail("varint runs past the end of the message", start);
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asIntN(64, result);
      shift += 7n;
    }
    return this.fail("varint longer than ten bytes", start);
  }

  /** Bounds of a length-delimited field's body; advances past it. */
  lengthDelimited(): [number, number] {
    const at = this.pos;
    const len = this.uvarint();
    const start = this.pos;
    if (len > this.end - start) this.fail(`field length ${len} runs past the end of the message`, at);
    this.pos = start + len;
    return [start, start + len];
  }

  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.int64();
        return;
      case WIRE_FIXED64:
        this.advance(8);
        return;
      case WIRE_LEN:
        this.lengthDelimited();
        return;
      case WIRE_FIXED32:
        this.advance(4);
        return;
      default:
        this.fail(`unsupported wire type ${wire}`);
    }
  }

  advance(n: number): void {
    if (this.pos + n > this.end) this.fail(`${n}-byte field runs past the end of the message`);
    this.pos += n;
  }
}
