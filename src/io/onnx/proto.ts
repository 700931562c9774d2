// A hand-written encoder for the subset of onnx.proto that Kiln emits: ModelProto, GraphProto,
// NodeProto, AttributeProto, TensorProto and ValueInfoProto (field numbers from onnx/onnx.proto). The
// CPU executor (exec/ort) writes its programs with it, and export/ the models it serves.
import { ProtoWriter } from "../protobuf.js";

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

/**
 * The element type of each of Kiln's dtypes, by the dtypes' names (io/ stands below the engine; indexing
 * it with a DType fails to compile when a dtype is missing).
 */
export const ONNX_TYPE = {
  f32: OnnxType.FLOAT,
  f64: OnnxType.DOUBLE,
  bf16: OnnxType.BFLOAT16,
  f16: OnnxType.FLOAT16,
  i32: OnnxType.INT32,
  u32: OnnxType.UINT32,
  i64: OnnxType.INT64,
  bool: OnnxType.BOOL,
} as const satisfies Record<string, OnnxType>;

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

// ---- messages (field numbers from onnx.proto), written with the shared protobuf writer ----

function writeTensor(w: ProtoWriter, t: TensorDef): void {
  for (const d of t.dims) w.intField(1, d); // dims
  w.intField(2, t.dataType); // data_type
  w.stringField(8, t.name); // name
  w.bytesField(9, t.raw); // raw_data
}

const ATTR_TYPE = { float: 1, int: 2, string: 3, tensor: 4, graph: 5, ints: 7 } as const;

function writeAttr(w: ProtoWriter, name: string, a: AttrValue): void {
  w.stringField(1, name).intField(20, ATTR_TYPE[a.kind]); // name, type
  switch (a.kind) {
    case "float":
      w.float32Field(2, a.value); // f
      break;
    case "int":
      w.intField(3, a.value); // i
      break;
    case "string":
      w.stringField(4, a.value); // s
      break;
    case "tensor":
      w.nested(5, () => writeTensor(w, a.value)); // t
      break;
    case "graph":
      w.nested(6, () => writeGraph(w, a.value)); // g
      break;
    case "ints":
      for (const v of a.value) w.intField(8, v); // ints
      break;
  }
}

function writeNode(w: ProtoWriter, n: NodeDef): void {
  for (const i of n.inputs) w.stringField(1, i);
  for (const o of n.outputs) w.stringField(2, o);
  if (n.name) w.stringField(3, n.name);
  w.stringField(4, n.op); // op_type
  for (const [k, v] of Object.entries(n.attrs ?? {})) w.nested(5, () => writeAttr(w, k, v));
  if (n.domain) w.stringField(7, n.domain);
}

function writeValueInfo(w: ProtoWriter, v: ValueInfoDef): void {
  w.stringField(1, v.name);
  w.nested(2, () =>
    // TypeProto.tensor_type { elem_type, shape: TensorShapeProto { dim { dim_value | dim_param } } }
    w.nested(1, () => {
      w.intField(1, v.dataType);
      w.nested(2, () => {
        for (const d of v.dims) w.nested(1, () => (typeof d === "number" ? w.intField(1, d) : w.stringField(2, d)));
      });
    }),
  );
}

function writeGraph(w: ProtoWriter, g: GraphDef): void {
  for (const n of g.nodes) w.nested(1, () => writeNode(w, n));
  w.stringField(2, g.name);
  for (const t of g.initializers) w.nested(5, () => writeTensor(w, t));
  for (const v of g.inputs) w.nested(11, () => writeValueInfo(w, v));
  for (const v of g.outputs) w.nested(12, () => writeValueInfo(w, v));
}

/** Bytes of tensor data in a graph and its subgraphs: most of a model's size. */
function tensorBytes(g: GraphDef): number {
  let n = g.initializers.reduce((sum, t) => sum + t.raw.length, 0);
  for (const node of g.nodes)
    for (const a of Object.values(node.attrs ?? {})) {
      if (a.kind === "tensor") n += a.value.raw.length;
      else if (a.kind === "graph") n += tensorBytes(a.value);
    }
  return n;
}

/** Serializes a model to ModelProto bytes. */
export function encodeModel(model: ModelDef): Uint8Array {
  // Reserving the tensor bytes up front (plus room for the rest) spares a large model the buffer's doublings.
  const w = new ProtoWriter(tensorBytes(model.graph) + (1 << 16));
  w.intField(1, model.irVersion); // ir_version
  w.stringField(2, model.producerName).stringField(3, model.producerVersion);
  w.nested(7, () => writeGraph(w, model.graph)); // graph
  for (const o of model.opsets) {
    w.nested(8, () => {
      // opset_import
      if (o.domain) w.stringField(1, o.domain);
      w.intField(2, o.version);
    });
  }
  return w.finish();
}

/** Opset 21: axes as inputs for every reduction (18+), Bitwise ops (18+), bf16/f16 Cast everywhere. */
export const OPSET = 21;
export const IR_VERSION = 10;

/** The domain of ONNX Runtime's own kernels (a session's fused chains); version 1 is its only opset. */
export const MS_DOMAIN = "com.microsoft";

/**
 * A model of Kiln's: `graph` with the IR version and opset every graph Kiln lowers is written for, and
 * each other domain its nodes use (ONNX Runtime's, or Kiln's generated kernels'; only in a session's
 * graph, never in an exported model's), at version 1.
 */
export function encodeKilnModel(graph: GraphDef, producerVersion: string): Uint8Array {
  const domains = new Set<string>();
  const visit = (nodes: readonly NodeDef[]): void => {
    for (const n of nodes) {
      if (n.domain) domains.add(n.domain);
      for (const a of Object.values(n.attrs ?? {})) if (a.kind === "graph") visit(a.value.nodes);
    }
  };
  visit(graph.nodes);
  const opsets = [{ domain: "", version: OPSET }, ...[...domains].sort().map((domain) => ({ domain, version: 1 }))];
  return encodeModel({ irVersion: IR_VERSION, opsets, producerName: "kiln", producerVersion, graph });
}
