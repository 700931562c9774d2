// A hand-written encoder for the subset of onnx.proto that Kiln emits: ModelProto, GraphProto,
// NodeProto, AttributeProto, TensorProto and ValueInfoProto (field numbers from onnx/onnx.proto).
//
// Messages are built as lists of byte chunks with a known total size, so a nested message costs no
// re-copy of its contents: large initializers are copied once, into the final model buffer.

/** TensorProto.DataType values used by Kiln. */
export const OnnxType = {
  FLOAT: 1,
  UINT8: 2,
  INT8: 3,
  UINT16: 4,
  INT16: 5,
  INT32: 6,
  INT64: 7,
  BOOL: 9,
  FLOAT16: 10,
  DOUBLE: 11,
  UINT32: 12,
  UINT64: 13,
  BFLOAT16: 16,
} as const;
export type OnnxType = (typeof OnnxType)[keyof typeof OnnxType];

export interface TensorDef {
  readonly name: string;
  readonly dataType: OnnxType;
  readonly dims: readonly number[];
  /** Little-endian element bytes (bool: one byte per element). */
  readonly raw: Uint8Array;
}

export type AttrValue =
  | { readonly kind: "int"; readonly value: number }
  | { readonly kind: "ints"; readonly value: readonly number[] }
  | { readonly kind: "float"; readonly value: number }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "tensor"; readonly value: TensorDef }
  | { readonly kind: "graph"; readonly value: GraphDef }; // a subgraph (Scan, Loop, If bodies)

/** Attribute constructors: ONNX distinguishes ints from floats, JS numbers do not. */
export const attr = {
  int: (value: number): AttrValue => ({ kind: "int", value }),
  ints: (value: readonly number[]): AttrValue => ({ kind: "ints", value }),
  float: (value: number): AttrValue => ({ kind: "float", value }),
  string: (value: string): AttrValue => ({ kind: "string", value }),
  tensor: (value: TensorDef): AttrValue => ({ kind: "tensor", value }),
  graph: (value: GraphDef): AttrValue => ({ kind: "graph", value }),
};

export interface NodeDef {
  readonly op: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly name?: string;
  readonly domain?: string;
  readonly attrs?: Readonly<Record<string, AttrValue>>;
}

export interface ValueInfoDef {
  readonly name: string;
  readonly dataType: OnnxType;
  /** A number is a fixed size (dim_value); a string names a size known only at run time (dim_param). */
  readonly dims: readonly (number | string)[];
}

export interface GraphDef {
  readonly name: string;
  readonly nodes: readonly NodeDef[];
  readonly initializers: readonly TensorDef[];
  readonly inputs: readonly ValueInfoDef[];
  readonly outputs: readonly ValueInfoDef[];
}

export interface ModelDef {
  readonly irVersion: number;
  readonly opsets: readonly { readonly domain: string; readonly version: number }[];
  readonly producerName: string;
  readonly producerVersion: string;
  readonly graph: GraphDef;
}

// ---- wire format ----

const WIRE_VARINT = 0,
  WIRE_FIXED32 = 5,
  WIRE_LEN = 2;
const utf8 = new TextEncoder();

/** A message under construction: byte chunks plus their total length. */
class Msg {
  readonly chunks: Uint8Array[] = [];
  size = 0;
  private scratch: number[] = [];

  private flushScratch(): void {
    if (!this.scratch.length) return;
    this.push(Uint8Array.from(this.scratch));
    this.scratch = [];
  }
  private push(b: Uint8Array): void {
    this.chunks.push(b);
    this.size += b.length;
  }
  private varintBytes(v: number): void {
    // int64 fields: negative values are encoded as their 64-bit two's complement (10 bytes).
    if (v < 0) {
      let b = BigInt.asUintN(64, BigInt(v));
      while (b >= 0x80n) {
        this.scratch.push(Number(b & 0x7fn) | 0x80);
        b >>= 7n;
      }
      this.scratch.push(Number(b));
      return;
    }
    if (!Number.isSafeInteger(v)) throw new RangeError(`onnx-proto: ${v} is not an integer that protobuf can carry exactly`);
    while (v >= 0x80) {
      this.scratch.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.scratch.push(v);
  }
  private tag(field: number, wire: number): void {
    this.varintBytes(field * 8 + wire);
  }

  varint(field: number, v: number): this {
    this.tag(field, WIRE_VARINT);
    this.varintBytes(v);
    return this;
  }
  float32(field: number, v: number): this {
    this.tag(field, WIRE_FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.scratch.push(...b);
    return this;
  }
  bytes(field: number, b: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.varintBytes(b.length);
    this.flushScratch();
    if (b.length) this.push(b);
    return this;
  }
  string(field: number, s: string): this {
    // Names are short ASCII: their bytes go straight into the scratch run (no encoder, no allocation).
    if (s.length < 128 && /^[\x00-\x7f]*$/.test(s)) {
      this.tag(field, WIRE_LEN);
      this.scratch.push(s.length);
      for (let i = 0; i < s.length; i++) this.scratch.push(s.charCodeAt(i));
      return this;
    }
    return this.bytes(field, utf8.encode(s));
  }
  message(field: number, m: Msg): this {
    m.flushScratch();
    this.tag(field, WIRE_LEN);
    this.varintBytes(m.size);
    this.flushScratch();
    for (const c of m.chunks) this.push(c);
    return this;
  }
  finish(): Uint8Array {
    this.flushScratch();
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

// ---- messages (field numbers from onnx.proto) ----

function tensorMsg(t: TensorDef): Msg {
  const m = new Msg();
  for (const d of t.dims) m.varint(1, d); // dims
  m.varint(2, t.dataType); // data_type
  m.string(8, t.name); // name
  m.bytes(9, t.raw); // raw_data
  return m;
}

const ATTR_TYPE = { float: 1, int: 2, string: 3, tensor: 4, graph: 5, ints: 7 } as const;

function attrMsg(name: string, a: AttrValue): Msg {
  const m = new Msg().string(1, name).varint(20, ATTR_TYPE[a.kind]); // name, type
  switch (a.kind) {
    case "float":
      m.float32(2, a.value);
      break; // f
    case "int":
      m.varint(3, a.value);
      break; // i
    case "string":
      m.string(4, a.value);
      break; // s
    case "tensor":
      m.message(5, tensorMsg(a.value));
      break; // t
    case "graph":
      m.message(6, graphMsg(a.value));
      break; // g
    case "ints":
      for (const v of a.value) m.varint(8, v);
      break; // ints
  }
  return m;
}

function nodeMsg(n: NodeDef): Msg {
  const m = new Msg();
  for (const i of n.inputs) m.string(1, i);
  for (const o of n.outputs) m.string(2, o);
  if (n.name) m.string(3, n.name);
  m.string(4, n.op); // op_type
  for (const [k, v] of Object.entries(n.attrs ?? {})) m.message(5, attrMsg(k, v));
  if (n.domain) m.string(7, n.domain);
  return m;
}

function valueInfoMsg(v: ValueInfoDef): Msg {
  const shape = new Msg();
  // TensorShapeProto.dim { dim_value | dim_param }
  for (const d of v.dims) shape.message(1, typeof d === "number" ? new Msg().varint(1, d) : new Msg().string(2, d));
  const tensorType = new Msg().varint(1, v.dataType).message(2, shape); // elem_type, shape
  const type = new Msg().message(1, tensorType); // TypeProto.tensor_type
  return new Msg().string(1, v.name).message(2, type);
}

function graphMsg(g: GraphDef): Msg {
  const m = new Msg();
  for (const n of g.nodes) m.message(1, nodeMsg(n));
  m.string(2, g.name);
  for (const t of g.initializers) m.message(5, tensorMsg(t));
  for (const v of g.inputs) m.message(11, valueInfoMsg(v));
  for (const v of g.outputs) m.message(12, valueInfoMsg(v));
  return m;
}

/** Serializes a model to ModelProto bytes. */
export function encodeModel(model: ModelDef): Uint8Array {
  const m = new Msg().varint(1, model.irVersion); // ir_version
  m.string(2, model.producerName).string(3, model.producerVersion);
  m.message(7, graphMsg(model.graph)); // graph
  for (const o of model.opsets) {
    const os = new Msg();
    if (o.domain) os.string(1, o.domain);
    m.message(8, os.varint(2, o.version)); // opset_import
  }
  return m.finish();
}
