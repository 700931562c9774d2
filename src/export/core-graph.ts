// A traced inference program lowered to an ONNX graph that can sit inside another graph: its names
// prefixed (several such graphs, one per sequence length, live in one model), and its weights moved out to
// a table shared by all of them, so that each weight is stored once however many lengths are traced.
import { createHash } from "node:crypto";
import type { AVal, Program } from "../core/ir.js";
import { lowerGraph } from "../exec/ort/lower-program.js";
import type { GraphDef, NodeDef, TensorDef } from "../io/onnx/proto.js";

/** Initializers at least this large are weights, shared between the traced lengths; smaller ones are shapes and scalars. */
const SHARED_BYTES = 256;

/** Initializers shared by content between graphs: the first graph's name stands for every copy. */
export class SharedInitializers {
  readonly tensors: TensorDef[] = [];
  private readonly byContent = new Map<string, string>();

  /** The shared name for `t`'s content (adding it under `name` the first time). */
  nameFor(t: TensorDef, name: string): string {
    const key = createHash("sha256")
      .update(`${t.dataType}|${t.dims.join(",")}|`)
      .update(t.raw)
      .digest("hex");
    const known = this.byContent.get(key);
    if (known) return known;
    this.byContent.set(key, name);
    this.tensors.push({ ...t, name });
    return name;
  }
}

export interface CoreGraph {
  /** Nodes and the small initializers, every name prefixed. */
  readonly nodes: readonly NodeDef[];
  readonly initializers: readonly TensorDef[];
  /** The graph's input names (ids, mask) and the names of its outputs, in program order. */
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly inputAvals: readonly AVal[];
  readonly outputAvals: readonly AVal[];
}

/**
 * Lowers `program` (one replica). Every name gets `prefix`; initializers of SHARED_BYTES or more go to
 * `shared` when given (else they stay in the graph). Initializers that no node reads are dropped: the
 * lowering re-declares a constant with a new shape instead of reshaping it.
 */
export function coreGraph(program: Program, prefix: string, shared?: SharedInitializers): CoreGraph {
  const lowered = lowerGraph(program, 1);
  const graph: GraphDef = lowered.graph;
  const sources = lowered.sources[0]!;
  sources.forEach((s, i) => {
    if (s.kind !== "graph")
      throw new Error(`export: output ${i} of ${program.name} is not computed by the graph (${s.kind}); nothing to serve`);
  });
  const read = new Set([...graph.nodes.flatMap((n) => n.inputs), ...graph.outputs.map((o) => o.name)]);
  const rename = new Map<string, string>();
  const initializers: TensorDef[] = [];
  for (const t of graph.initializers) {
    if (!read.has(t.name)) continue;
    const name = prefix + t.name;
    if (shared && t.raw.length >= SHARED_BYTES) rename.set(t.name, shared.nameFor(t, name));
    else initializers.push({ ...t, name });
  }
  const renamed = (n: string) => (n === "" ? n : (rename.get(n) ?? prefix + n)); // "" is an omitted optional input
  return {
    nodes: graph.nodes.map((n) => ({ ...n, inputs: n.inputs.map(renamed), outputs: n.outputs.map(renamed) })),
    initializers,
    inputs: lowered.inputNames.map(renamed),
    outputs: sources.map((s) => renamed(lowered.outputNames[(s as { index: number }).index]!)),
    inputAvals: program.inputs.map((v) => v.aval),
    outputAvals: sources.map((s) => lowered.outputAvals[(s as { index: number }).index]!),
  };
}
