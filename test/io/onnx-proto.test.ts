// The ModelProto encoder: exact bytes of small messages (protobuf wire format by hand), and whole models
// loaded and run by the official onnxruntime-node binding (an independent protobuf parser).
import test from "node:test";
import assert from "node:assert/strict";
import * as ort from "onnxruntime-node";
import { attr, encodeModel, OnnxType, type GraphDef } from "../../src/io/onnx/proto.js";

const model = (graph: GraphDef, opset = 21) =>
  encodeModel({ irVersion: 10, opsets: [{ domain: "", version: opset }], producerName: "kiln", producerVersion: "test", graph });

test("field tags, varints and nested lengths follow the protobuf wire format", () => {
  const bytes = encodeModel({
    irVersion: 10,
    opsets: [{ domain: "", version: 300 }],
    producerName: "k",
    producerVersion: "",
    graph: { name: "g", nodes: [], initializers: [], inputs: [], outputs: [] },
  });
  assert.deepEqual(
    [...bytes],
    [
      0x08,
      10, // ir_version = 10
      0x12,
      1,
      0x6b, // producer_name = "k"
      0x1a,
      0, // producer_version = ""
      0x3a,
      3,
      0x12,
      1,
      0x67, // graph { name = "g" }
      0x42,
      3,
      0x10,
      0xac,
      0x02, // opset_import { version = 300 (two-byte varint) }
    ],
  );
});

test("negative int attributes are 10-byte two's complement varints", () => {
  const bytes = encodeModel({
    irVersion: 10,
    opsets: [],
    producerName: "",
    producerVersion: "",
    graph: {
      name: "",
      nodes: [{ op: "X", inputs: [], outputs: [], attrs: { a: attr.int(-1) } }],
      initializers: [],
      inputs: [],
      outputs: [],
    },
  });
  const hex = Buffer.from(bytes).toString("hex");
  // AttributeProto { name "a", type INT (field 20), i = -1 (field 3) }
  assert.ok(hex.includes("0a0161a0010218ffffffffffffffffff01"), hex);
});

test("a model with every attribute kind and an initializer runs in the official binding", async () => {
  const f32 = (xs: number[]) => new Uint8Array(Float32Array.from(xs).buffer);
  const i64 = (xs: number[]) => new Uint8Array(BigInt64Array.from(xs.map(BigInt)).buffer);
  const bytes = model({
    name: "attrs",
    nodes: [
      { op: "Gather", inputs: ["x", "idx"], outputs: ["g"], attrs: { axis: attr.int(-1) } },
      { op: "LeakyRelu", inputs: ["g"], outputs: ["l"], attrs: { alpha: attr.float(0.25) } },
      {
        op: "Constant",
        inputs: [],
        outputs: ["k"],
        attrs: { value: attr.tensor({ name: "kv", dataType: OnnxType.FLOAT, dims: [1], raw: f32([10]) }) },
      },
      { op: "Add", inputs: ["l", "k"], outputs: ["y"] },
      { op: "BitShift", inputs: ["u", "s"], outputs: ["z"], attrs: { direction: attr.string("LEFT") } },
      { op: "Transpose", inputs: ["x"], outputs: ["t"], attrs: { perm: attr.ints([1, 0]) } },
    ],
    initializers: [
      { name: "idx", dataType: OnnxType.INT64, dims: [2], raw: i64([2, 0]) },
      { name: "s", dataType: OnnxType.UINT32, dims: [], raw: new Uint8Array(Uint32Array.of(3).buffer) },
    ],
    inputs: [
      { name: "x", dataType: OnnxType.FLOAT, dims: [2, 3] },
      { name: "u", dataType: OnnxType.UINT32, dims: [2] },
    ],
    outputs: [
      { name: "y", dataType: OnnxType.FLOAT, dims: [2, 2] },
      { name: "z", dataType: OnnxType.UINT32, dims: [2] },
      { name: "t", dataType: OnnxType.FLOAT, dims: [3, 2] },
    ],
  });
  const session = await ort.InferenceSession.create(bytes);
  assert.deepEqual(session.inputNames, ["x", "u"]);
  assert.deepEqual(session.outputNames, ["y", "z", "t"]);
  const out = await session.run({
    x: new ort.Tensor("float32", Float32Array.from([1, -2, -4, 3, 5, -8]), [2, 3]),
    u: new ort.Tensor("uint32", Uint32Array.from([1, 5]), [2]),
  });
  assert.deepEqual([...(out.y!.data as Float32Array)], [9, 11, 8, 13]);
  assert.deepEqual([...(out.z!.data as Uint32Array)], [8, 40]);
  assert.deepEqual(out.t!.dims, [3, 2]);
  assert.deepEqual([...(out.t!.data as Float32Array)], [1, 3, -2, 5, -4, -8]);
  await session.release();
});
