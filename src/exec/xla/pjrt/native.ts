// Native memory the plugin reads and writes: argument structs and small arrays, allocated outside
// the JS heap (so they never move) and freed explicitly by whoever allocated them.
import "../../native-stacks.js"; // before koffi loads any library
import koffi from "koffi";
import { fieldOf, type StructLayout } from "./layout.js";

if (koffi.sizeof("size_t") !== 8 || koffi.sizeof("void *") !== 8) throw new Error("the PJRT binding needs a 64-bit platform");

/** A zeroed block of native memory. */
export class NativeBlock {
  readonly address: bigint;
  readonly view: DataView;

  constructor(readonly byteLength: number) {
    this.address = koffi.alloc("uint8_t", Math.max(byteLength, 1)) as bigint;
    this.view = new DataView(koffi.view(this.address, Math.max(byteLength, 1)));
    new Uint8Array(this.view.buffer).fill(0);
  }

  /** An array of 64-bit words (pointers, int64s, size_ts). */
  static words(values: readonly bigint[]): NativeBlock {
    const b = new NativeBlock(8 * values.length);
    values.forEach((v, i) => b.view.setBigUint64(8 * i, BigInt.asUintN(64, v), true));
    return b;
  }

  static utf8(s: string): NativeBlock {
    const bytes = Buffer.from(s, "utf8");
    const b = new NativeBlock(bytes.length + 1); // NUL-terminated too, for fields documented as C strings
    new Uint8Array(b.view.buffer).set(bytes);
    return b;
  }

  static bytes(data: Uint8Array): NativeBlock {
    const b = new NativeBlock(data.length);
    new Uint8Array(b.view.buffer).set(data);
    return b;
  }

  word(i: number): bigint {
    return this.view.getBigUint64(8 * i, true);
  }

  free(): void {
    koffi.free(this.address);
  }
}

/** A PJRT struct at some offset of a native block (arrays of structs hold several). */
export class StructAt {
  constructor(
    readonly layout: StructLayout,
    private readonly view: DataView,
    private readonly base = 0,
  ) {}

  set(field: string, value: number | bigint | boolean): this {
    const f = fieldOf(this.layout, field),
      at = this.base + f.offset;
    switch (f.type) {
      case "size_t":
      case "pointer":
      case "int64":
      case "union8":
        this.view.setBigUint64(at, BigInt.asUintN(64, BigInt(value)), true);
        break;
      case "int":
        this.view.setInt32(at, Number(value), true);
        break;
      case "bool":
        this.view.setUint8(at, value ? 1 : 0);
        break;
      case "float":
        this.view.setFloat32(at, Number(value), true);
        break;
    }
    return this;
  }

  /** A 64-bit field (pointer, size_t, int64) as an unsigned bigint. */
  pointer(field: string): bigint {
    return this.view.getBigUint64(this.base + fieldOf(this.layout, field).offset, true);
  }

  size(field: string): number {
    return Number(this.pointer(field));
  }

  int(field: string): number {
    return this.view.getInt32(this.base + fieldOf(this.layout, field).offset, true);
  }

  bool(field: string): boolean {
    return this.view.getUint8(this.base + fieldOf(this.layout, field).offset) !== 0;
  }

  /** The first four bytes of a field as a float (the float member of PJRT_NamedValue's union). */
  float(field: string): number {
    return this.view.getFloat32(this.base + fieldOf(this.layout, field).offset, true);
  }

  setFloat(field: string, value: number): this {
    this.view.setFloat32(this.base + fieldOf(this.layout, field).offset, value, true);
    return this;
  }
}

/** One PJRT struct in its own native block, struct_size filled in. */
export class NativeStruct extends StructAt {
  private readonly block: NativeBlock;

  constructor(layout: StructLayout) {
    const block = new NativeBlock(layout.byteLength);
    super(layout, block.view);
    this.block = block;
    if (layout.fields.has("struct_size")) this.set("struct_size", layout.structSize);
  }

  get address(): bigint {
    return this.block.address;
  }

  free(): void {
    this.block.free();
  }
}

/** `size` bytes at a native address (not NUL-terminated), as UTF-8. */
export function readString(address: bigint, size: number): string {
  if (!address || size === 0) return "";
  return Buffer.from(koffi.view(address, size)).toString("utf8");
}

/** A copy of `size` bytes at a native address. */
export function copyBytes(address: bigint, size: number): Uint8Array {
  if (!address || size === 0) return new Uint8Array(0);
  return new Uint8Array(koffi.view(address, size).slice(0));
}

/** A DataView of native memory (no copy; valid while its owner keeps it). */
export function nativeView(address: bigint, length: number): DataView {
  return new DataView(koffi.view(address, length));
}

/** `count` 64-bit words at a native address. */
export function readWords(address: bigint, count: number): bigint[] {
  if (count === 0) return [];
  const v = new DataView(koffi.view(address, 8 * count));
  return Array.from({ length: count }, (_, i) => v.getBigUint64(8 * i, true));
}

/** The address of a typed array's first element (its memory must stay alive while native code uses it). */
export function addressOf(data: ArrayBufferView | ArrayBuffer): bigint {
  return koffi.address(data) as bigint;
}
