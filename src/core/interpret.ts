// Replaying a traced program with Arrays: each equation is bound again, so replaying under a trace
// inlines the program there, and replaying eagerly runs it op by op.
import { Array } from "./array.js";
import type { PrimParams, Program, Var } from "./ir.js";
import { bind, bindMulti } from "./ops/dispatch.js";
import { fromHost } from "./ops/creation.js";

/**
 * Runs `program` on `args` (inputs then captures); returns every var's value and the outputs. With
 * `bindScan` (autodiff's replay: loops that also save what their VJP will read), loops are bound by it.
 */
export function replay(
  program: Program,
  args: readonly Array[],
  opts: { bindScan?: (ins: readonly Array[], params: PrimParams["scan"]) => Array[] } = {},
): { env: Map<number, Array>; outputs: Array[] } {
  if (args.length !== program.inputs.length)
    throw new Error(`replay: ${program.name} takes ${program.inputs.length} inputs, got ${args.length}`);
  const env = new Map<number, Array>();
  program.inputs.forEach((v, i) => env.set(v.id, args[i]!));
  for (const c of program.consts) env.set(c.v.id, fromHost(c.value, c.v.aval.shape, c.v.aval.dtype));
  const read = (v: Var) => env.get(v.id)!;
  for (const e of program.eqns) {
    if (!e.outs) {
      env.set(e.out.id, bind(e.prim, e.inputs.map(read), e.params as never));
      continue;
    }
    const ins = e.inputs.map(read);
    const outs =
      opts.bindScan && e.prim === "scan" ? opts.bindScan(ins, e.params as PrimParams["scan"]) : bindMulti(e.prim, ins, e.params as never);
    e.outs.forEach((v, i) => env.set(v.id, outs[i]!));
  }
  return { env, outputs: program.outputs.map(read) };
}
