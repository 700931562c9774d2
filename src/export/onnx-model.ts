// An inference program's ONNX graph wrapped in the signature a server feeds: int64 input_ids and
// attention_mask (what transformers.js and Optimum-exported models take), named outputs.
//
// Kiln's programs have static shapes. A fixed signature (`batch` a number) is the program as traced: the
// input must be exactly [batch, maxLength], XLA-style. A dynamic one runs the program traced for one
// sequence of maxLength tokens inside a Scan over the batch: each row is padded to maxLength (pad id,
// attention 0), and the outputs are cut back to the input's length. Padding does not change the real
// positions' values: the attention bias of padded keys underflows exp() to exactly 0, and each row is
// computed alone, as in the traced program.
import type { Program } from "../core/ir.js";
import { lowerGraph, OPSET, IR_VERSION } from "../exec/ort/lower-program.js";
import { encodeModel, OnnxType, attr, type GraphDef, type NodeDef, type TensorDef, type ValueInfoDef } from "../exec/ort/onnx-proto.js";
import { ONNX_TYPE } from "../exec/ort/graph-builder.js";

export interface OnnxSignature {
  /** A fixed batch size, or "dynamic" (batch and sequence length both chosen at run time). */
  readonly batch: number | "dynamic";
  readonly maxLength: number;
  readonly padId: number;
}

const BATCH = "batch_size",
  SEQUENCE = "sequence_length";

function int64s(name: string, values: readonly number[]): TensorDef {
  return { name, dataType: OnnxType.INT64, dims: [values.length], raw: new Uint8Array(BigInt64Array.from(values, BigInt).buffer) };
}

function int32Scalar(name: string, value: number): TensorDef {
  return { name, dataType: OnnxType.INT32, dims: [], raw: new Uint8Array(Int32Array.of(value).buffer) };
}

const node = (op: string, inputs: string[], outputs: string[], attrs?: NodeDef["attrs"]): NodeDef => ({ op, inputs, outputs, attrs });

/**
 * The graph without initializers that no node reads: the lowering re-declares a constant with a new
 * shape instead of reshaping it, which can leave the original unread (ONNX Runtime warns about each one).
 */
function withoutUnusedInitializers(g: GraphDef): GraphDef {
  const read = new Set([...g.nodes.flatMap((n) => n.inputs), ...g.outputs.map((o) => o.name)]);
  return { ...g, initializers: g.initializers.filter((t) => read.has(t.name)) };
}

/**
 * The ONNX model bytes for `program` (traced with inputs ids, mask as i32 [b, maxLength], b = the fixed
 * batch or 1 when dynamic) whose outputs are named `outputNames`.
 */
export function onnxModel(program: Program, outputNames: readonly string[], sig: OnnxSignature, producerVersion: string): Uint8Array {
  const lowered = lowerGraph(program, 1);
  lowered.sources[0]!.forEach((s, i) => {
    if (s.kind !== "graph")
      throw new Error(`export: output "${outputNames[i]}" is not computed by the graph (${s.kind}); nothing to serve`);
  });
  const core = withoutUnusedInitializers(lowered.graph);
  const [idsIn, maskIn] = lowered.inputNames as [string, string];
  const coreOut = lowered.sources[0]!.map((s) => lowered.outputNames[(s as { index: number }).index]!);
  const outAvals = lowered.sources[0]!.map((s) => lowered.outputAvals[(s as { index: number }).index]!);
  const dims = (d: number | string): (number | string)[] => [d, ...(sig.batch === "dynamic" ? [SEQUENCE] : [sig.maxLength])];
  const inputs: ValueInfoDef[] = ["input_ids", "attention_mask"].map((name) => ({
    name,
    dataType: OnnxType.INT64,
    dims: dims(sig.batch === "dynamic" ? BATCH : sig.batch),
  }));
  const outputs: ValueInfoDef[] = outputNames.map((name, i) => ({
    name,
    dataType: ONNX_TYPE[outAvals[i]!.dtype],
    dims: [...dims(sig.batch === "dynamic" ? BATCH : sig.batch), ...outAvals[i]!.shape.slice(2)],
  }));
  const casts = [
    node("Cast", ["input_ids"], ["export_ids"], { to: attr.int(OnnxType.INT32) }),
    node("Cast", ["attention_mask"], ["export_mask"], { to: attr.int(OnnxType.INT32) }),
  ];

  let graph: GraphDef;
  if (sig.batch !== "dynamic") {
    // The traced graph as it is, between the casts and named outputs.
    graph = {
      name: "kiln_inference",
      nodes: [
        ...casts,
        node("Identity", ["export_ids"], [idsIn]),
        node("Identity", ["export_mask"], [maskIn]),
        ...core.nodes,
        ...coreOut.map((o, i) => node("Identity", [o], [outputNames[i]!])),
      ],
      initializers: core.initializers,
      inputs,
      outputs,
    };
  } else {
    const L = sig.maxLength;
    // Scan body: one row [L] → the traced program on [1, L] → each output without its batch dimension.
    const body: GraphDef = {
      name: "kiln_inference_row",
      nodes: [
        node("Reshape", ["row_ids", "export_row_shape"], [idsIn]),
        node("Reshape", ["row_mask", "export_row_shape"], [maskIn]),
        ...core.nodes,
        ...coreOut.map((o, i) => node("Reshape", [o, `export_out_shape${i}`], [`row_${outputNames[i]}`])),
      ],
      initializers: [
        ...core.initializers,
        int64s("export_row_shape", [1, L]),
        ...outAvals.map((a, i) => int64s(`export_out_shape${i}`, a.shape.slice(1))),
      ],
      inputs: ["row_ids", "row_mask"].map((name) => ({ name, dataType: OnnxType.INT32, dims: [L] })),
      outputs: outputNames.map((name, i) => ({
        name: `row_${name}`,
        dataType: ONNX_TYPE[outAvals[i]!.dtype],
        dims: outAvals[i]!.shape.slice(1),
      })),
    };
    graph = {
      name: "kiln_inference",
      nodes: [
        ...casts,
        // pads = [0, 0, 0, L - length]: right-pad the sequence axis to L.
        node("Shape", ["input_ids"], ["export_length"], { start: attr.int(1), end: attr.int(2) }),
        node("Sub", ["export_max_length", "export_length"], ["export_pad"]),
        node("Concat", ["export_zeros3", "export_pad"], ["export_pads"], { axis: attr.int(0) }),
        node("Pad", ["export_ids", "export_pads", "export_pad_id"], ["export_ids_padded"]),
        node("Pad", ["export_mask", "export_pads", "export_zero"], ["export_mask_padded"]),
        node(
          "Scan",
          ["export_ids_padded", "export_mask_padded"],
          outputNames.map((n) => `export_padded_${n}`),
          {
            body: attr.graph(body),
            num_scan_inputs: attr.int(2),
          },
        ),
        // Back to the input's length.
        ...outputNames.map((n) => node("Slice", [`export_padded_${n}`, "export_zero1", "export_length", "export_one1"], [n])),
      ],
      initializers: [
        int64s("export_max_length", [L]),
        int64s("export_zeros3", [0, 0, 0]),
        int64s("export_zero1", [0]),
        int64s("export_one1", [1]),
        int32Scalar("export_pad_id", sig.padId),
        int32Scalar("export_zero", 0),
      ],
      inputs,
      outputs,
    };
  }
  return encodeModel({ irVersion: IR_VERSION, opsets: [{ domain: "", version: OPSET }], producerName: "kiln", producerVersion, graph });
}
