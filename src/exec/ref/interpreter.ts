// The reference interpreter: runs a program equation by equation with the reference kernels. Replicas
// run in lockstep so that all_reduce can see every replica's operand.
import type { Prim, Program, Var } from "../../core/ir.js";
import { REF_KERNELS, type ReplicatedKernel } from "./kernels.js";
import type { HostTensor } from "./tensor.js";

export function interpret(program: Program, args: readonly (readonly HostTensor[])[]): HostTensor[][] {
  const envs = args.map((replicaArgs) => {
    if (replicaArgs.length !== program.inputs.length)
      throw new Error(`${program.name}: expected ${program.inputs.length} inputs, got ${replicaArgs.length}`);
    const env = new Map<number, HostTensor>();
    program.inputs.forEach((v, i) => env.set(v.id, replicaArgs[i]!));
    for (const c of program.consts) env.set(c.v.id, { aval: c.v.aval, data: c.value });
    return env;
  });
  const read = (env: Map<number, HostTensor>, v: Var) => {
    const t = env.get(v.id);
    if (!t) throw new Error(`${program.name}: %${v.id} is used before it is defined`);
    return t;
  };
  for (const e of program.eqns) {
    if (e.outs) {
      const multi = REF_KERNELS[e.prim] as unknown as ReplicatedKernel<Prim>;
      const results = multi(
        envs.map((env) => e.inputs.map((v) => read(env, v))),
        e.params,
        e.outs.map((o) => o.aval),
        interpret,
      );
      envs.forEach((env, r) => e.outs!.forEach((o, j) => env.set(o.id, results[r]![j]!)));
      continue;
    }
    const kernel = REF_KERNELS[e.prim] as (ins: readonly HostTensor[], p: unknown, out: Var["aval"], ctx: object) => HostTensor;
    const replicaValues = e.prim === "all_reduce" ? envs.map((env) => read(env, e.inputs[0]!)) : undefined;
    for (const env of envs) {
      env.set(
        e.out.id,
        kernel(
          e.inputs.map((v) => read(env, v)),
          e.params,
          e.out.aval,
          { replicaValues },
        ),
      );
    }
  }
  return envs.map((env) => program.outputs.map((v) => read(env, v)));
}
