// A protocol-buffers encoder for the few field kinds Kiln sends to XLA (proto3 wire format).
// Fields are written in the order they are added; parsers accept any order.

const WIRE_VARINT = 0;
const WIRE_LENGTH_DELIMITED = 2;

export class ProtoWriter {
  private readonly bytes: number[] = [];

  private rawVarint(value: bigint): void {
    // Negative integers are sent as their 64-bit two's complement: ten bytes.
    let v = BigInt.asUintN(64, value);
    while (v > 0x7fn) {
      this.bytes.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.bytes.push(Number(v));
  }

  private tag(field: number, wire: number): void {
    this.rawVarint(BigInt((field << 3) | wire));
  }

  /** An int32/int64/uint64/enum field. */
  int(field: number, value: number | bigint): this {
    this.tag(field, WIRE_VARINT);
    this.rawVarint(BigInt(value));
    return this;
  }

  bool(field: number, value: boolean): this {
    return this.int(field, value ? 1 : 0);
  }

  /** A bytes/string/embedded-message field. */
  bytesField(field: number, data: Uint8Array): this {
    this.tag(field, WIRE_LENGTH_DELIMITED);
    this.rawVarint(BigInt(data.length));
    for (const b of data) this.bytes.push(b);
    return this;
  }

  message(field: number, inner: ProtoWriter): this {
    return this.bytesField(field, inner.finish());
  }

  /** A repeated integer field in proto3's packed encoding. */
  packedInts(field: number, values: readonly (number | bigint)[]): this {
    const inner = new ProtoWriter();
    for (const v of values) inner.rawVarint(BigInt(v));
    return this.bytesField(field, inner.finish());
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}
