// scan → one ONNX `Scan` node whose body graph is the loop body lowered like any program. ONNX's Scan
// matches the primitive: state variables are the carry, scan inputs are sliced along axis 0, scan
// outputs are stacked along axis 0, and both directions can be reversed. Loop constants are not
// inputs: the body reads them from the enclosing graph by name. With N replicas one Scan carries every
// replica's state, so an all_reduce inside the body sums the copies as it does outside a loop.
import type { AVal, PrimParams, Program } from "../../core/ir.js";
import { GraphBuilder, type Val } from "./graph-builder.js";
import { attr, ONNX_TYPE, type GraphDef, type ValueInfoDef } from "../../io/onnx/proto.js";

/** Lowers a body program into `g` with one environment per replica (already holding its inputs). */
export type LowerBody = (g: GraphBuilder, program: Program, envs: Map<number, Val>[]) => void;

/** The lowering of a loop: every replica's operands in, every replica's results out. */
export type ScanLowering = (
  g: GraphBuilder,
  replicaIns: readonly (readonly Val[])[],
  params: PrimParams["scan"],
  outs: readonly AVal[],
  lowerBody: LowerBody,
) => Val[][];

const info = (name: string, aval: AVal): ValueInfoDef => ({ name, dataType: ONNX_TYPE[aval.dtype], dims: aval.shape });
const whole = (name: string, aval: AVal): Val => ({ name, dtype: aval.dtype, shape: aval.shape, full: aval.shape });

export const lowerScan: ScanLowering = (g, replicaIns, p, outs, lowerBody) => {
  const { body, numConsts: nc, numCarry: nk, length, reverse } = p;
  const nx = body.inputs.length - nc - nk;
  const sub = new GraphBuilder(g.fresh("scan") + "_", g.relayOutConstants);
  const stateIn: ValueInfoDef[] = [],
    scanIn: ValueInfoDef[] = [],
    nodeState: string[] = [],
    nodeScan: string[] = [];
  const envs = replicaIns.map((ins) => {
    const env = new Map<number, Val>();
    body.inputs.forEach((v, i) => {
      if (i < nc) return env.set(v.id, ins[i]!); // read from the enclosing graph
      const name = sub.fresh("in");
      env.set(v.id, whole(name, v.aval));
      (i < nc + nk ? stateIn : scanIn).push(info(name, v.aval));
      (i < nc + nk ? nodeState : nodeScan).push(g.materialize(ins[i]!).name);
    });
    return env;
  });
  if (nx === 0) {
    // Scan takes its trip count from a scanned input: a loop over nothing scans a placeholder.
    scanIn.push(info(sub.fresh("count"), { shape: [], dtype: "bool" }));
    nodeScan.push(g.constant("bool", [length], new Uint8Array(length)).name);
  }
  lowerBody(sub, body, envs);

  // Body outputs must be values its own nodes compute, each named once: anything else goes through Identity.
  const computed = new Set(sub.nodes.flatMap((n) => n.outputs));
  const named = new Set<string>();
  const output = (v: Val): string => {
    const m = sub.materialize(v);
    if (computed.has(m.name) && !named.has(m.name)) {
      named.add(m.name);
      return m.name;
    }
    const id = sub.node("Identity", [m.name]);
    named.add(id);
    return id;
  };
  const read = (env: Map<number, Val>, id: number) => env.get(id)!;
  const stateOut = envs.flatMap((env) => body.outputs.slice(0, nk).map((v) => output(read(env, v.id))));
  const scanOut = envs.flatMap((env) => body.outputs.slice(nk).map((v) => output(read(env, v.id))));
  const graph: GraphDef = {
    name: `${body.name}`,
    nodes: sub.liveNodes([...stateOut, ...scanOut]),
    initializers: sub.initializers,
    inputs: [...stateIn, ...scanIn],
    outputs: [
      ...stateOut.map((n, i) => info(n, body.outputs[i % nk]!.aval)),
      ...scanOut.map((n, i) => info(n, body.outputs[nk + (i % (body.outputs.length - nk))]!.aval)),
    ],
  };
  const results = [...stateOut, ...scanOut].map(() => g.fresh("scanout"));
  const dir = reverse ? 1 : 0;
  g.nodes.push({
    op: "Scan",
    inputs: [...nodeState, ...nodeScan],
    outputs: results,
    attrs: {
      body: attr.graph(graph),
      num_scan_inputs: attr.int(scanIn.length),
      scan_input_directions: attr.ints(scanIn.map(() => dir)),
      scan_output_directions: attr.ints(scanOut.map(() => dir)),
    },
  });
  const ny = body.outputs.length - nk;
  return replicaIns.map((_, r) => [
    ...outs.slice(0, nk).map((aval, j) => whole(results[r * nk + j]!, aval)),
    ...outs.slice(nk).map((aval, j) => whole(results[envs.length * nk + r * ny + j]!, aval)),
  ]);
};
