// A whole IR program → one ONNX model. With N replicas the graph holds N copies of the program side by
// side, lowered in lockstep so that all_reduce can sum the copies' operands (data parallelism on one
// machine, exact: the same sum the reference interpreter computes).
import type { DType, HostArray } from "../../core/dtype.js";
import type { AVal, PrimParams, Program, Var } from "../../core/ir.js";
import { fmtAVal, printProgram } from "../../core/ir.js";
import { shapesEqual } from "../../core/shape.js";
import { encodeKilnModel, ONNX_TYPE, type GraphDef, type ValueInfoDef } from "../../io/onnx/proto.js";
import { GraphBuilder, type Val } from "./graph-builder.js";
import { LOWERINGS } from "./lowering-table.js";
import type { Lowering } from "./lowering-signature.js";
import type { ScanLowering } from "./lower-scan.js";
import { foldTransposedProducts, scaleRowsAfterProducts } from "./rewrite.js";
import { mergeSharedOperandProducts } from "./merge-products.js";
import { findFusions } from "./fused-kernels.js";
import { inPlaceInputs } from "./in-place.js";
import { groupPointwise, type PointwiseGroup } from "./pointwise-groups.js";
import { rowKernels, type RowKernel } from "./row-kernels.js";

/** Where one program output of one replica comes from. */
export type OutputSource =
  | { readonly kind: "graph"; readonly index: number } // a graph output, written by the run
  | { readonly kind: "input"; readonly index: number } // the replica's own input, unchanged
  | { readonly kind: "constant"; readonly dtype: DType; readonly data: HostArray }; // known at compile time

export interface LoweredProgram {
  readonly model: Uint8Array;
  /** Graph input names, replica-major: replica r's input i is at r * inputs + i. */
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly outputAvals: readonly AVal[];
  /** sources[r][j]: program output j on replica r. */
  readonly sources: readonly (readonly OutputSource[])[];
  /**
   * inPlace[k]: the input (of a one-replica program) that graph output k may be written over, or -1
   * (see inPlaceInputs); the executable uses it when the input is donated and nothing else holds it.
   */
  readonly inPlace: readonly number[];
  readonly nodeCount: number;
  /** The generated kernels the graph's POINTWISE_DOMAIN nodes run (pointwise-library.ts builds them). */
  readonly pointwise: readonly PointwiseGroup[];
  readonly rowKernels: readonly RowKernel[];
}

function valueInfo(name: string, aval: AVal): ValueInfoDef {
  return { name, dataType: ONNX_TYPE[aval.dtype], dims: aval.shape };
}

/** Lowers `program`'s equations into `g`, one environment per replica (each already holding the inputs and constants). */
function lowerEqns(g: GraphBuilder, program: Program, envs: Map<number, Val>[], consts: ReadonlyMap<number, HostArray>): void {
  const read = (env: Map<number, Val>, v: Var) => {
    const x = env.get(v.id);
    if (!x) throw new Error(`${program.name}: %${v.id} is used before it is defined`);
    return x;
  };
  // A session's graph computes some chains in one ORT kernel (fused-kernels.ts); an exported model keeps plain ONNX ops.
  const fusions = g.relayOutConstants ? findFusions(program, consts) : undefined;
  for (const e of program.eqns) {
    if (fusions?.skip.has(e)) continue;
    const fused = fusions?.at.get(e);
    if (fused) {
      for (const env of envs)
        env.set(
          e.out.id,
          fused(g, (v) => read(env, v)),
        );
      continue;
    }
    if (e.outs) {
      try {
        const lower = LOWERINGS[e.prim] as ScanLowering;
        const results = lower(
          g,
          envs.map((env) => e.inputs.map((v) => read(env, v))),
          e.params as PrimParams["scan"],
          e.outs.map((o) => o.aval),
          (sub, body, bodyEnvs) => lowerEqns(sub, foldTransposedProducts(body), bodyEnvs, new Map()),
        );
        envs.forEach((env, r) => e.outs!.forEach((o, j) => env.set(o.id, results[r]![j]!)));
      } catch (err) {
        throw new Error(`${program.name}: cannot lower %${e.out.id} = ${e.prim}: ${(err as Error).message}\n${printProgram(program)}`);
      }
      continue;
    }
    const lower = LOWERINGS[e.prim] as Lowering<any>;
    const check = (v: Val) => {
      if (v.dtype !== e.out.aval.dtype || !shapesEqual(v.full, e.out.aval.shape)) {
        throw new Error(`internal: lowering of ${e.prim} produced ${v.dtype}[${v.full}] for ${fmtAVal(e.out.aval)}`);
      }
      return v;
    };
    try {
      if (e.prim === "all_reduce" && envs.length > 1) {
        const operands = envs.map((env) => read(env, e.inputs[0]!));
        const sum = check(lower(g, [operands[0]!], e.params, e.out.aval, operands));
        for (const env of envs) env.set(e.out.id, sum);
      } else {
        for (const env of envs)
          env.set(
            e.out.id,
            check(
              lower(
                g,
                e.inputs.map((v) => read(env, v)),
                e.params,
                e.out.aval,
              ),
            ),
          );
      }
    } catch (err) {
      throw new Error(`${program.name}: cannot lower %${e.out.id} = ${e.prim}: ${(err as Error).message}\n${printProgram(program)}`);
    }
  }
}

/** A program lowered to an ONNX graph (not yet wrapped in a model): what lowerProgram encodes. */
export type LoweredGraph = Omit<LoweredProgram, "model"> & { readonly graph: GraphDef };

/**
 * For a session: constant matrices are laid out for their products (see GraphBuilder's
 * `relayOutConstants`), and with `pointwise`, chains of elementwise nodes become generated kernels.
 */
export function lowerProgram(
  source: Program,
  replicas: number,
  producerVersion: string,
  opts: { pointwise?: boolean } = {},
): LoweredProgram {
  const { graph, ...rest } = lowerGraph(source, replicas, { relayOutConstants: true, pointwise: opts.pointwise });
  return { model: encodeKilnModel(graph, producerVersion), ...rest };
}

export function lowerGraph(
  source: Program,
  replicas: number,
  opts: { relayOutConstants?: boolean; pointwise?: boolean } = {},
): LoweredGraph {
  const program = scaleRowsAfterProducts(foldTransposedProducts(source));
  const g = new GraphBuilder("", opts.relayOutConstants ?? false);
  g.generatedKernels = opts.pointwise ?? false;
  const inputs: ValueInfoDef[] = [];
  const envs = Array.from({ length: replicas }, (_, r) => {
    const env = new Map<number, Val>();
    program.inputs.forEach((v, i) => {
      const name = `in${r}_${i}`;
      inputs.push(valueInfo(name, v.aval));
      env.set(v.id, { name, dtype: v.aval.dtype, shape: v.aval.shape, full: v.aval.shape });
    });
    return env;
  });
  // Constants are shared by every replica.
  const constData = new Map<number, HostArray>();
  for (const c of program.consts) {
    const v = g.constant(c.v.aval.dtype, c.v.aval.shape, c.value);
    constData.set(c.v.id, c.value);
    for (const env of envs) env.set(c.v.id, v);
  }

  lowerEqns(g, program, envs, constData);
  const read = (env: Map<number, Val>, v: Var) => env.get(v.id)!;

  // Outputs: inputs and constants pass through without a copy; every other value is a graph output
  // named by the node that computes it (so ORT writes it straight into the bound buffer).
  const inputNames = new Set(inputs.map((i) => i.name));
  const outputNames: string[] = [];
  const outputAvals: AVal[] = [];
  const sources = envs.map((env) =>
    program.outputs.map((v): OutputSource => {
      const inputIndex = program.inputs.indexOf(v);
      if (inputIndex >= 0) return { kind: "input", index: inputIndex };
      const known = constData.get(v.id);
      if (known) return { kind: "constant", dtype: v.aval.dtype, data: known };
      const val = g.materialize(read(env, v));
      if (inputNames.has(val.name)) return { kind: "input", index: Number(val.name.split("_")[1]) };
      const init = g.initializerData.get(val.name);
      if (init) return { kind: "constant", dtype: init.dtype, data: init.data };
      let index = outputNames.indexOf(val.name);
      if (index < 0) {
        index = outputNames.push(val.name) - 1;
        outputAvals.push(v.aval);
      }
      return { kind: "graph", index };
    }),
  );

  const live = g.liveNodes(outputNames);
  const merged = g.relayOutConstants ? mergeSharedOperandProducts(g, live) : live;
  const { nodes, groups: pointwise } = opts.pointwise
    ? groupPointwise(merged, outputNames, g.valueInfo, g.rowSums)
    : { nodes: merged, groups: [] };
  const graph: GraphDef = {
    name: program.name,
    nodes,
    initializers: g.liveInitializers(nodes, outputNames),
    inputs,
    outputs: outputNames.map((n, i) => valueInfo(n, outputAvals[i]!)),
  };
  const inPlace = replicas === 1 ? inPlaceInputs(graph, sources[0]!) : outputNames.map(() => -1);
  return {
    graph,
    inputNames: inputs.map((i) => i.name),
    outputNames,
    outputAvals,
    sources,
    inPlace,
    nodeCount: graph.nodes.length,
    pointwise,
    rowKernels: rowKernels(g),
  };
}
