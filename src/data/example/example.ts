// tf.train.Example encode/decode. The messages, from tensorflow/core/example/{example,feature}.proto:
//
//   Example   { Features features = 1; }
//   Features  { map<string, Feature> feature = 1; }   (map entry: key = 1, value = 2)
//   Feature   { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
//   BytesList { repeated bytes value = 1; }
//   FloatList { repeated float value = 1 [packed = true]; }
//   Int64List { repeated int64 value = 1 [packed = true]; }
//
// Writing uses packed lists and sorts map keys (protobuf's deterministic serialization), so equal
// examples always give equal bytes. Reading accepts packed and unpacked lists in any key order.
import { ProtoError, ProtoReader, ProtoWriter, WIRE_FIXED32, WIRE_LEN, WIRE_VARINT } from "../../io/protobuf.js";

export type Int64Values = BigInt64Array | Int32Array | readonly number[] | readonly bigint[];

/** One feature of a tf.train.Example: a list of int64s, floats, or byte strings. */
export type Feature =
  | { kind: "int64"; values: Int64Values }
  | { kind: "float"; values: Float32Array | readonly number[] }
  | { kind: "bytes"; values: readonly Uint8Array[] };

/** A decoded feature. "none" is a Feature with no list set, which TensorFlow reads as empty. */
export type DecodedFeature =
  | { kind: "int64"; values: BigInt64Array }
  | { kind: "float"; values: Float32Array }
  | { kind: "bytes"; values: Uint8Array[] }
  | { kind: "none" };

const FEATURE_BYTES_LIST = 1;
const FEATURE_FLOAT_LIST = 2;
const FEATURE_INT64_LIST = 3;

/** How errors name a malformed record. */
const EXAMPLE = { message: "tf.train.Example", unit: "record" };

/** A malformed tf.train.Example: where (byte offset within the record) and what. */
export function exampleError(at: number, problem: string): ProtoError {
  return new ProtoError(at, problem, EXAMPLE);
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** Serializes a tf.train.Example with the given features. */
export function encodeExample(features: Record<string, Feature>): Uint8Array {
  const w = new ProtoWriter();
  const names = Object.keys(features).sort(compareUtf8);
  w.nested(1, () => {
    for (const name of names) {
      w.nested(1, () => {
        w.tag(1, WIRE_LEN);
        w.bytes(utf8.encode(name));
        w.nested(2, () => writeFeature(w, features[name]!, name));
      });
    }
  });
  return w.finish();
}

function writeFeature(w: ProtoWriter, feature: Feature, name: string): void {
  switch (feature.kind) {
    case "bytes":
      w.nested(FEATURE_BYTES_LIST, () => {
        for (const v of feature.values) {
          w.tag(1, WIRE_LEN);
          w.bytes(v);
        }
      });
      return;
    case "float":
      w.nested(FEATURE_FLOAT_LIST, () => {
        if (feature.values.length === 0) return;
        w.tag(1, WIRE_LEN);
        w.uvarint(feature.values.length * 4);
        for (const v of feature.values) w.float32(v);
      });
      return;
    case "int64":
      w.nested(FEATURE_INT64_LIST, () => {
        if (feature.values.length === 0) return;
        w.nested(1, () => writeInt64s(w, feature.values, name));
      });
      return;
  }
}

function writeInt64s(w: ProtoWriter, values: Int64Values, name: string): void {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (typeof v === "bigint") {
      if (v < -(2n ** 63n) || v >= 2n ** 63n) throw new RangeError(`feature "${name}" value ${i} (${v}) does not fit in int64`);
      w.int64(v);
    } else {
      if (!Number.isSafeInteger(v))
        throw new RangeError(`feature "${name}" value ${i} (${v}) is not an integer that a number holds exactly; pass a bigint`);
      if (v >= -(2 ** 31) && v < 2 ** 31) w.int64FromInt32(v);
      else w.int64(BigInt(v));
    }
  }
}

// Protobuf sorts map keys by their UTF-8 bytes; for strings of BMP characters outside the surrogate
// range that equals code-unit order, and comparing the encoded bytes is always right.
function compareUtf8(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Parses a serialized tf.train.Example into its features (unknown fields are skipped). */
export function decodeExample(bytes: Uint8Array): Record<string, DecodedFeature> {
  const out: Record<string, DecodedFeature> = {};
  const r = new ProtoReader(bytes, 0, bytes.length, 0, EXAMPLE);
  while (!r.done()) {
    const tag = r.uvarint();
    if (tag === (1 << 3) + WIRE_LEN) {
      const [s, e] = r.lengthDelimited();
      decodeFeatures(r.sub(s, e), out);
    } else r.skip(tag & 7);
  }
  return out;
}

function decodeFeatures(r: ProtoReader, out: Record<string, DecodedFeature>): void {
  while (!r.done()) {
    const tag = r.uvarint();
    if (tag !== (1 << 3) + WIRE_LEN) {
      r.skip(tag & 7);
      continue;
    }
    const [s, e] = r.lengthDelimited();
    const entry = r.sub(s, e);
    let key = "";
    let feature: DecodedFeature = { kind: "none" };
    while (!entry.done()) {
      const t = entry.uvarint();
      if (t === (1 << 3) + WIRE_LEN) {
        const [ks, ke] = entry.lengthDelimited();
        try {
          key = utf8Decoder.decode(entry.buf.subarray(ks, ke));
        } catch {
          entry.fail("feature name is not valid UTF-8", ks);
        }
      } else if (t === (2 << 3) + WIRE_LEN) {
        const [fs, fe] = entry.lengthDelimited();
        feature = decodeFeature(entry.sub(fs, fe));
      } else entry.skip(t & 7);
    }
    out[key] = feature; // a repeated key: the last one wins, as in protobuf maps
  }
}

function decodeFeature(r: ProtoReader): DecodedFeature {
  let feature: DecodedFeature = { kind: "none" };
  while (!r.done()) {
    const tag = r.uvarint();
    const field = Math.floor(tag / 8);
    if ((tag & 7) !== WIRE_LEN || field < 1 || field > 3) {
      r.skip(tag & 7);
      continue;
    }
    const [s, e] = r.lengthDelimited();
    const list = r.sub(s, e);
    if (field === FEATURE_BYTES_LIST) feature = { kind: "bytes", values: decodeBytesList(list) };
    else if (field === FEATURE_FLOAT_LIST) feature = { kind: "float", values: decodeFloatList(list) };
    else feature = { kind: "int64", values: decodeInt64List(list) };
  }
  return feature;
}

function decodeBytesList(r: ProtoReader): Uint8Array[] {
  const values: Uint8Array[] = [];
  while (!r.done()) {
    const tag = r.uvarint();
    if (tag === (1 << 3) + WIRE_LEN) {
      const [s, e] = r.lengthDelimited();
      values.push(r.buf.slice(s, e));
    } else r.skip(tag & 7);
  }
  return values;
}

function decodeFloatList(r: ProtoReader): Float32Array {
  const values: number[] = [];
  const view = new DataView(r.buf.buffer, r.buf.byteOffset, r.buf.byteLength);
  while (!r.done()) {
    const tag = r.uvarint();
    if (tag === (1 << 3) + WIRE_LEN) {
      const [s, e] = r.lengthDelimited();
      if ((e - s) % 4 !== 0) r.fail(`packed float list of ${e - s} bytes is not a multiple of 4`, s);
      for (let p = s; p < e; p += 4) values.push(view.getFloat32(p, true));
    } else if (tag === (1 << 3) + WIRE_FIXED32) {
      const p = r.pos;
      r.advance(4);
      values.push(view.getFloat32(p, true));
    } else r.skip(tag & 7);
  }
  return Float32Array.from(values);
}

function decodeInt64List(r: ProtoReader): BigInt64Array {
  const values: bigint[] = [];
  while (!r.done()) {
    const tag = r.uvarint();
    if (tag === (1 << 3) + WIRE_LEN) {
      const [s, e] = r.lengthDelimited();
      const packed = r.sub(s, e);
      while (!packed.done()) values.push(packed.int64());
    } else if (tag === (1 << 3) + WIRE_VARINT) values.push(r.int64());
    else r.skip(tag & 7);
  }
  return BigInt64Array.from(values);
}
