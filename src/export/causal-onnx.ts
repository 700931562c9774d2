// A decoder's ONNX model in the signature Optimum gives decoders and transformers.js' text-generation runs:
// input_ids [batch, seq], attention_mask [batch, past + seq], position_ids [batch, seq] (int64) and each
// layer's past_key_values.N.key/value [batch, kvHeads, past, headDim] → logits [batch, seq, vocab] and
// present.N.key/value [batch, kvHeads, past + seq, headDim], the past with the new tokens appended.
// A prompt's first call has an empty past (length 0).
//
// Kiln's programs have static shapes, so the graph holds the step program (causal-program.ts) traced for
// batch 1 at a few new-token counts (1, 32, 64, … up to maxLength) and past lengths (0, 32, … maxLength);
// the weights are stored once. It picks the smallest pair that fits (If chains), pads each row (new tokens
// with the pad id, past slots with zeros, both masked out), runs the program row by row in a Scan and
// cuts the outputs back. Padding changes nothing real: masked keys get exactly zero attention weight, and
// a padded new token comes after the real ones, which causal attention keeps from seeing it.
import type { Program } from "../core/ir.js";
import { encodeKilnModel, OnnxType, attr, type GraphDef, type NodeDef, type TensorDef, type ValueInfoDef } from "../io/onnx/proto.js";
import { coreGraph, SharedInitializers, type CoreGraph } from "./core-graph.js";
import type { CausalStepShape } from "./causal-program.js";
import { int32Scalar, int64s, node } from "../io/onnx/nodes.js";

export interface CausalOnnxSignature {
  readonly maxLength: number;
  readonly padId: number;
  readonly layers: number;
  readonly kvHeads: number;
  readonly headDim: number;
  readonly vocabSize: number;
}

export type TraceCausalStep = (shape: CausalStepShape) => Program;

const BATCH = "batch_size",
  SEQUENCE = "sequence_length",
  PAST = "past_sequence_length",
  TOTAL = "total_sequence_length";
/** The shortest traced length past one token; each further one doubles it, up to the longest allowed. */
const FIRST_LENGTH = 32;
/** Slice's "to the end". */
const TO_END = Number.MAX_SAFE_INTEGER;

function bucketLengths(first: number, maxLength: number): number[] {
  const lengths = [first];
  for (let l = FIRST_LENGTH; l < maxLength; l *= 2) lengths.push(l);
  return [...lengths, maxLength];
}

/** The cache's input and output names, as transformers.js and Optimum give them. */
export function causalCacheNames(layers: number): { past: string[]; present: string[] } {
  const names = (prefix: string) => Array.from({ length: layers }, (_, i) => [`${prefix}.${i}.key`, `${prefix}.${i}.value`]).flat();
  return { past: names("past_key_values"), present: names("present") };
}

/** A part of a graph: its nodes and the constants they read. */
interface GraphPart {
  nodes: NodeDef[];
  initializers: TensorDef[];
}

/** The ONNX model bytes: the step program that `trace` gives, for any batch, past and new-token count. */
export function causalOnnxModel(trace: TraceCausalStep, sig: CausalOnnxSignature, producerVersion: string): Uint8Array {
  const { past, present } = causalCacheNames(sig.layers);
  const kvDims = (length: string) => [BATCH, sig.kvHeads, length, sig.headDim];
  const f32 = (name: string, dims: (number | string)[]): ValueInfoDef => ({ name, dataType: OnnxType.FLOAT, dims });
  const i64 = (name: string, dims: (number | string)[]): ValueInfoDef => ({ name, dataType: OnnxType.INT64, dims });
  const inputs = [
    i64("input_ids", [BATCH, SEQUENCE]),
    i64("attention_mask", [BATCH, TOTAL]),
    i64("position_ids", [BATCH, SEQUENCE]),
    ...past.map((n) => f32(n, kvDims(PAST))),
  ];
  const outputs = [f32("logits", [BATCH, SEQUENCE, sig.vocabSize]), ...present.map((n) => f32(n, kvDims(TOTAL)))];
  /** What each If gives: the logits and every layer's new keys and values, cut to the input's length. */
  const stepOutputs = ["logits", ...past.map((n) => `${n}_new`)];
  const stepInfo = (name: string, i: number) => (i === 0 ? f32(name, [BATCH, SEQUENCE, sig.vocabSize]) : f32(name, kvDims(SEQUENCE)));

  const shared = new SharedInitializers();
  const cases = (first: number) => bucketLengths(first, sig.maxLength);
  const branch = (tokens: number, pastSlots: number, out: (n: string) => string): GraphPart =>
    rowBranch(coreGraph(trace({ tokens, pastSlots }), `t${tokens}p${pastSlots}_`, shared), tokens, pastSlots, past, stepOutputs, out);
  const chain = firstFit("export_length", cases(1), stepOutputs, stepInfo, "t", (tokens, outT) =>
    firstFit("export_past", cases(0), stepOutputs, stepInfo, `t${tokens}p`, (pastSlots, outP) => branch(tokens, pastSlots, outP))(outT),
  )((n) => n);

  const graph: GraphDef = {
    name: "kiln_causal_lm",
    nodes: [
      node("Cast", ["input_ids"], ["export_ids"], { to: attr.int(OnnxType.INT32) }),
      node("Cast", ["position_ids"], ["export_positions"], { to: attr.int(OnnxType.INT32) }),
      node("Cast", ["attention_mask"], ["export_mask"], { to: attr.int(OnnxType.INT32) }),
      node("Shape", ["input_ids"], ["export_length1"], { start: attr.int(1), end: attr.int(2) }),
      node("Reshape", ["export_length1", "export_scalar_shape"], ["export_length"]),
      node("Shape", [past[0]!], ["export_past1"], { start: attr.int(2), end: attr.int(3) }),
      node("Reshape", ["export_past1", "export_scalar_shape"], ["export_past"]),
      // The mask's first `past` columns are the cached tokens', the rest the new ones'.
      node("Slice", ["export_mask", "export_zero1", "export_past1", "export_one1"], ["export_past_mask"]),
      node("Slice", ["export_mask", "export_past1", "export_end1", "export_one1"], ["export_new_mask"]),
      ...chain.nodes,
      ...past.map((n, i) => node("Concat", [n, `${n}_new`], [present[i]!], { axis: attr.int(2) })),
    ],
    initializers: [
      ...shared.tensors,
      ...chain.initializers,
      int64s("export_scalar_shape", [], [0]),
      int64s("export_zero1", [0]),
      int64s("export_one1", [1]),
      int64s("export_two1", [2]),
      int64s("export_end1", [TO_END]),
      int64s("export_zeros3", [0, 0, 0]),
      int64s("export_zeros6", [0, 0, 0, 0, 0, 0]),
      int32Scalar("export_pad_id", sig.padId),
      int32Scalar("export_zero", 0),
    ],
    inputs,
    outputs,
  };
  return encodeKilnModel(graph, producerVersion);
}

/**
 * The part of a graph that computes `outputs` (named by `out`) by the first case whose limit the int64
 * scalar `value` does not exceed: a chain of If nodes, the last case taking whatever is left.
 */
function firstFit(
  value: string,
  limits: readonly number[],
  outputs: readonly string[],
  info: (name: string, i: number) => ValueInfoDef,
  tag: string,
  build: (limit: number, out: (n: string) => string) => GraphPart,
): (out: (n: string) => string) => GraphPart {
  const from =
    (i: number) =>
    (out: (n: string) => string): GraphPart => {
      const limit = limits[i]!;
      if (i === limits.length - 1) return build(limit, out);
      const asGraph = (name: string, part: GraphPart, names: (n: string) => string): GraphDef => ({
        name,
        ...part,
        inputs: [],
        outputs: outputs.map((n, k) => info(names(n), k)),
      });
      const then = (n: string) => `${tag}${limit}_then_${n}`;
      const rest = (n: string) => `${tag}${limit}_rest_${n}`;
      return {
        nodes: [
          node("LessOrEqual", [value, `${tag}${limit}_limit`], [`${tag}${limit}_fits`]),
          node("If", [`${tag}${limit}_fits`], outputs.map(out), {
            then_branch: attr.graph(asGraph(`${tag}${limit}`, build(limit, then), then)),
            else_branch: attr.graph(asGraph(`${tag}over${limit}`, from(i + 1)(rest), rest)),
          }),
        ],
        initializers: [int64s(`${tag}${limit}_limit`, [limit], [])],
      };
    };
  return from(0);
}

/**
 * One traced program's branch: pad the new tokens to `tokens` and the past to `pastSlots`, run the
 * program on each row (Scan), and cut the logits and new keys and values back to the input's length.
 */
function rowBranch(
  core: CoreGraph,
  tokens: number,
  pastSlots: number,
  past: readonly string[],
  stepOutputs: readonly string[],
  out: (n: string) => string,
): GraphPart {
  const p = `t${tokens}p${pastSlots}_export_`;
  const pastInputs = pastSlots === 0 ? [] : past;
  const rowInputs = [`${p}row_ids`, `${p}row_positions`, `${p}row_slots`, ...pastInputs.map((n) => `${p}row_${n}`)];
  const rowShapes = core.inputs.map((_, i) => `${p}in_shape${i}`);
  const body: GraphDef = {
    name: `kiln_causal_row_t${tokens}p${pastSlots}`,
    nodes: [
      ...core.inputs.map((name, i) => node("Reshape", [rowInputs[i]!, rowShapes[i]!], [name])),
      ...core.nodes,
      ...core.outputs.map((o, i) => node("Reshape", [o, `${p}out_shape${i}`], [`${p}row_out${i}`])),
    ],
    initializers: [
      ...core.initializers,
      ...rowShapes.map((name, i) => int64s(name, [1, ...rowDims(core, i)])),
      ...core.outputAvals.map((a, i) => int64s(`${p}out_shape${i}`, a.shape.slice(1))),
    ],
    inputs: rowInputs.map((name, i) => ({
      name,
      dataType: i < 3 ? OnnxType.INT32 : OnnxType.FLOAT,
      dims: rowDims(core, i),
    })),
    outputs: core.outputAvals.map((a, i) => ({ name: `${p}row_out${i}`, dataType: OnnxType.FLOAT, dims: a.shape.slice(1) })),
  };
  const padNew = [
    // pads = [0, 0, 0, tokens - length]: right-pad the sequence axis.
    node("Sub", [`${p}tokens`, "export_length1"], [`${p}new_pad`]),
    node("Concat", ["export_zeros3", `${p}new_pad`], [`${p}new_pads`], { axis: attr.int(0) }),
    node("Pad", ["export_ids", `${p}new_pads`, "export_pad_id"], [`${p}ids`]),
    node("Pad", ["export_positions", `${p}new_pads`, "export_zero"], [`${p}positions`]),
    node("Pad", ["export_new_mask", `${p}new_pads`, "export_zero"], [`${p}new_mask`]),
  ];
  const padPast =
    pastSlots === 0
      ? [node("Identity", [`${p}new_mask`], [`${p}slots`])]
      : [
          node("Sub", [`${p}past_slots`, "export_past1"], [`${p}past_pad`]),
          node("Concat", ["export_zeros3", `${p}past_pad`], [`${p}mask_pads`], { axis: attr.int(0) }),
          node("Pad", ["export_past_mask", `${p}mask_pads`, "export_zero"], [`${p}past_mask`]),
          node("Concat", [`${p}past_mask`, `${p}new_mask`], [`${p}slots`], { axis: attr.int(1) }),
          // pads = [0, 0, 0, 0, 0, 0, past_slots - past, 0]: zeros after each past key and value.
          node("Concat", ["export_zeros6", `${p}past_pad`, "export_zero1"], [`${p}cache_pads`], { axis: attr.int(0) }),
          ...past.map((n) => node("Pad", [n, `${p}cache_pads`], [`${p}padded_${n}`])),
        ];
  const scanOutputs = stepOutputs.map((_, i) => `${p}scan_out${i}`);
  return {
    nodes: [
      ...padNew,
      ...padPast,
      node("Scan", [`${p}ids`, `${p}positions`, `${p}slots`, ...pastInputs.map((n) => `${p}padded_${n}`)], scanOutputs, {
        body: attr.graph(body),
        num_scan_inputs: attr.int(rowInputs.length),
      }),
      // Back to the input's length: the logits' axis 1, the keys' and values' axis 2.
      ...stepOutputs.map((n, i) =>
        node("Slice", [scanOutputs[i]!, "export_zero1", "export_length1", i === 0 ? "export_one1" : "export_two1"], [out(n)]),
      ),
    ],
    initializers: [int64s(`${p}tokens`, [tokens]), int64s(`${p}past_slots`, [pastSlots])],
  };
}

/** The shape of one row of the core's input i (its traced shape without the batch axis of 1). */
function rowDims(core: CoreGraph, i: number): number[] {
  return core.inputAvals[i]!.shape.slice(1);
}
