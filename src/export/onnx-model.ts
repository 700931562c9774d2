// An inference program's ONNX model, in the signature a server feeds: int64 input_ids and attention_mask
// (and token_type_ids, for a classifier that reads them: what transformers.js and Optimum-exported models
// take) → named f32 outputs, per token ([batch, sequence, …]) or per row ([batch, …]: a classifier's logits).
//
// Kiln's programs have static shapes. A fixed signature (`batch` a number) is the program as traced: the
// input must be exactly [batch, maxLength], XLA-style. A dynamic one holds the program traced for one
// sequence at a few lengths (32, 64, … up to maxLength; the weights stored once), picks the shortest
// that fits the input, and runs it inside a Scan over the batch: each row is padded to that length (pad
// id, attention 0) and the outputs are cut back to the input's length. Padding does not change the real
// positions' values: the attention bias of padded keys underflows exp() to exactly 0, and each row is
// computed alone, as in the traced program.
import type { Program } from "../core/ir.js";
import {
  encodeKilnModel,
  ONNX_TYPE,
  OnnxType,
  attr,
  type GraphDef,
  type NodeDef,
  type TensorDef,
  type ValueInfoDef,
} from "../io/onnx/proto.js";
import { int32Scalar, int64s, node } from "../io/onnx/nodes.js";
import { coreGraph, SharedInitializers, type CoreGraph } from "./core-graph.js";

export interface OnnxSignature {
  /** A fixed batch size, or "dynamic" (batch and sequence length both chosen at run time). */
  readonly batch: number | "dynamic";
  readonly maxLength: number;
  readonly padId: number;
  /** Whether the program takes token_type_ids as its third input (padded with type 0). Default false. */
  readonly tokenTypes?: boolean;
  /** Outputs with one value per row, no sequence axis (a classifier's logits); the others are per token. */
  readonly perRow?: readonly string[];
}

/** Traces the inference program for inputs [batch, length]. */
export type TraceInference = (batch: number, length: number) => Program;

const BATCH = "batch_size",
  SEQUENCE = "sequence_length";
/** The shortest traced length; each further one doubles it, up to the longest allowed. */
const FIRST_LENGTH = 32;

function tracedLengths(maxLength: number): number[] {
  const lengths: number[] = [];
  for (let l = FIRST_LENGTH; l < maxLength; l *= 2) lengths.push(l);
  return [...lengths, maxLength];
}

/**
 * An output's type: `lead` are the leading dims of a per-token output ([batch, sequence], or [length] for one
 * row); a per-row output has no sequence axis, so it keeps the lead but its last.
 */
function outputInfo(name: string, core: CoreGraph, i: number, lead: readonly (number | string)[], perRow: boolean): ValueInfoDef {
  const aval = core.outputAvals[i]!;
  const dims = perRow ? [...lead.slice(0, -1), ...aval.shape.slice(1)] : [...lead, ...aval.shape.slice(2)];
  return { name, dataType: ONNX_TYPE[aval.dtype], dims };
}

const INPUTS = ["input_ids", "attention_mask", "token_type_ids"];
/** The inputs as i32, what the traced program takes. */
const EXPORT_INPUTS = ["export_ids", "export_mask", "export_types"];

/** The ONNX model bytes for the program `trace` gives, with outputs named `outputNames`. */
export function onnxModel(trace: TraceInference, outputNames: readonly string[], sig: OnnxSignature, producerVersion: string): Uint8Array {
  const lead = sig.batch === "dynamic" ? [BATCH, SEQUENCE] : [sig.batch, sig.maxLength];
  const names = INPUTS.slice(0, sig.tokenTypes ? 3 : 2);
  const inputs: ValueInfoDef[] = names.map((name) => ({ name, dataType: OnnxType.INT64, dims: lead }));
  const casts = names.map((name, i) => node("Cast", [name], [EXPORT_INPUTS[i]!], { to: attr.int(OnnxType.INT32) }));
  const perRow = outputNames.map((n) => sig.perRow?.includes(n) ?? false);
  const graph =
    sig.batch === "dynamic"
      ? dynamicGraph(trace, outputNames, perRow, sig, inputs, casts)
      : fixedGraph(trace(sig.batch, sig.maxLength), outputNames, perRow, inputs, casts);
  return encodeKilnModel(graph, producerVersion);
}

/** The traced graph as it is, between the casts and the named outputs. */
function fixedGraph(
  program: Program,
  outputNames: readonly string[],
  perRow: readonly boolean[],
  inputs: ValueInfoDef[],
  casts: NodeDef[],
): GraphDef {
  const core = coreGraph(program, "");
  return {
    name: "kiln_inference",
    nodes: [
      ...casts,
      ...inputs.map((_, i) => node("Identity", [EXPORT_INPUTS[i]!], [core.inputs[i]!])),
      ...core.nodes,
      ...core.outputs.map((o, i) => node("Identity", [o], [outputNames[i]!])),
    ],
    initializers: [...core.initializers],
    inputs,
    outputs: outputNames.map((n, i) => outputInfo(n, core, i, inputs[0]!.dims, perRow[i]!)),
  };
}

function dynamicGraph(
  trace: TraceInference,
  outputNames: readonly string[],
  perRow: readonly boolean[],
  sig: OnnxSignature,
  inputs: ValueInfoDef[],
  casts: NodeDef[],
): GraphDef {
  const shared = new SharedInitializers();
  const lengths = tracedLengths(sig.maxLength);
  const cores = lengths.map((l) => coreGraph(trace(1, l), `l${l}_`, shared));
  const lead = [BATCH, SEQUENCE];

  /**
   * For inputs that fit length l: pad each row to l (ids with the pad id, mask and token types with 0), run
   * the program row by row, cut per-token outputs back to the input's length.
   */
  const branch = (l: number, core: CoreGraph, out: (name: string) => string): GraphDef => {
    const p = `l${l}_export_`;
    const rowInputs = ["row_ids", "row_mask", "row_types"].slice(0, inputs.length).map((x) => p + x);
    const padded = ["ids", "mask", "types"].slice(0, inputs.length).map((x) => p + x);
    const padValues = ["export_pad_id", "export_zero", "export_zero"];
    const body: GraphDef = {
      name: `kiln_inference_row_${l}`,
      nodes: [
        ...rowInputs.map((r, i) => node("Reshape", [r, `${p}row_shape`], [core.inputs[i]!])),
        ...core.nodes,
        ...core.outputs.map((o, i) => node("Reshape", [o, `${p}out_shape${i}`], [`${p}row_${outputNames[i]}`])),
      ],
      initializers: [
        ...core.initializers,
        int64s(`${p}row_shape`, [1, l]),
        ...core.outputAvals.map((a, i) => int64s(`${p}out_shape${i}`, a.shape.slice(1))),
      ],
      inputs: rowInputs.map((name) => ({ name, dataType: OnnxType.INT32, dims: [l] })),
      outputs: outputNames.map((n, i) => outputInfo(`${p}row_${n}`, core, i, [l], perRow[i]!)),
    };
    return {
      name: `kiln_inference_${l}`,
      nodes: [
        // pads = [0, 0, 0, l - length]: right-pad the sequence axis to l.
        node("Sub", [`${p}length`, "export_length"], [`${p}pad`]),
        node("Concat", ["export_zeros3", `${p}pad`], [`${p}pads`], { axis: attr.int(0) }),
        ...padded.map((name, i) => node("Pad", [EXPORT_INPUTS[i]!, `${p}pads`, padValues[i]!], [name])),
        node(
          "Scan",
          padded,
          outputNames.map((n) => `${p}padded_${n}`),
          { body: attr.graph(body), num_scan_inputs: attr.int(padded.length) },
        ),
        ...outputNames.map((n, i) =>
          perRow[i]
            ? node("Identity", [`${p}padded_${n}`], [out(n)])
            : node("Slice", [`${p}padded_${n}`, "export_zero1", "export_length", "export_one1"], [out(n)]),
        ),
      ],
      initializers: [int64s(`${p}length`, [l])],
      inputs: [],
      outputs: outputNames.map((n, i) => outputInfo(out(n), core, i, lead, perRow[i]!)),
    };
  };

  /** Lengths from index i on: the first that fits, by a chain of If nodes (the last takes the rest). */
  const choose = (i: number, out: (name: string) => string): NodeDef[] => {
    const l = lengths[i]!;
    if (i === lengths.length - 1) return [...branch(l, cores[i]!, out).nodes]; // the last length: no choice left
    const inner = (n: string) => `l${l}_rest_${n}`;
    const elseBranch: GraphDef = {
      name: `kiln_inference_over_${l}`,
      nodes: choose(i + 1, inner),
      initializers: restInitializers(i + 1),
      inputs: [],
      outputs: outputNames.map((n, k) => outputInfo(inner(n), cores[i + 1]!, k, lead, perRow[k]!)),
    };
    return [
      node("LessOrEqual", ["export_length_scalar", `l${l}_export_limit`], [`l${l}_export_fits`]),
      node("If", [`l${l}_export_fits`], outputNames.map(out), {
        then_branch: attr.graph(branch(l, cores[i]!, (n) => `l${l}_then_${n}`)),
        else_branch: attr.graph(elseBranch),
      }),
    ];
  };
  /** The initializers that the chain from index i on declares in its own graph. */
  const restInitializers = (i: number): TensorDef[] => {
    const l = lengths[i]!;
    return i === lengths.length - 1 ? [int64s(`l${l}_export_length`, [l])] : [int64s(`l${l}_export_limit`, [l], [])];
  };

  return {
    name: "kiln_inference",
    nodes: [
      ...casts,
      node("Shape", ["input_ids"], ["export_length"], { start: attr.int(1), end: attr.int(2) }),
      node("Reshape", ["export_length", "export_scalar_shape"], ["export_length_scalar"]),
      ...choose(0, (n) => n),
    ],
    initializers: [
      ...shared.tensors,
      ...restInitializers(0),
      int64s("export_scalar_shape", [], [0]),
      int64s("export_zeros3", [0, 0, 0]),
      int64s("export_zero1", [0]),
      int64s("export_one1", [1]),
      int32Scalar("export_pad_id", sig.padId),
      int32Scalar("export_zero", 0),
    ],
    inputs,
    outputs: outputNames.map((n, i) => outputInfo(n, cores[0]!, i, lead, perRow[i]!)),
  };
}
