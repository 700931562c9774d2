// Builds IR programs equation by equation (result types from the engine's shape rules), for tests
// that exercise one primitive at a time on an executor.
import * as k from "../../src/index.js";

export class ProgramBuilder {
  private nextId = 0;
  private readonly inputs: k.Var[] = [];
  private readonly consts: k.Const[] = [];
  private readonly eqns: k.Eqn[] = [];

  private newVar(aval: k.AVal): k.Var {
    return { id: this.nextId++, aval };
  }

  input(dtype: k.DType, shape: readonly number[]): k.Var {
    const v = this.newVar({ shape, dtype });
    this.inputs.push(v);
    return v;
  }

  constant(dtype: k.DType, shape: readonly number[], value: k.HostArray): k.Var {
    const v = this.newVar({ shape, dtype });
    this.consts.push({ v, value });
    return v;
  }

  eqn<P extends k.Prim>(prim: P, inputs: readonly k.Var[], params: k.PrimParams[P]): k.Var {
    const rule = k.SHAPE_RULES[prim] as (ins: readonly k.AVal[], p: k.PrimParams[P]) => k.AVal;
    const out = this.newVar(
      rule(
        inputs.map((v) => v.aval),
        params,
      ),
    );
    this.eqns.push({ prim, inputs, out, params } as k.Eqn);
    return out;
  }

  build(name: string, outputs: readonly k.Var[]): k.Program {
    return { name, inputs: [...this.inputs], consts: [...this.consts], eqns: [...this.eqns], outputs: [...outputs] };
  }
}
