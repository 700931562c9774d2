// Tracing: while a function is traced, every operation on its arrays is recorded as an equation in the
// innermost active Trace instead of being computed ("omnistaging": even operations on concrete arrays
// are recorded, and the concrete arrays become constants of the program).
import type { AVal, Const, Eqn, Prim, PrimParams, Program, Var } from "./ir.js";
import { eqnOuts } from "./ir.js";
import type { Array } from "./array.js";

let nextVarId = 0;
function newVar(aval: AVal): Var {
  return { id: nextVarId++, aval };
}

const stack: Trace[] = [];

export class Trace {
  readonly level: number;
  active = true;
  readonly inputs: Var[] = [];
  readonly eqns: Eqn[] = [];
  readonly consts: Const[] = [];
  /** Arrays from outside this trace (outer tracers) that the function closed over, in capture order. */
  readonly captured: Array[] = [];
  private readonly captureVars: Var[] = [];
  private readonly bound = new Map<Array, Var>();

  constructor(level: number) {
    this.level = level;
  }

  newInput(aval: AVal, make: (t: Trace, v: Var) => Array): Array {
    const v = newVar(aval);
    this.inputs.push(v);
    return make(this, v);
  }

  /** The variable standing for `x` in this trace: its own var, a captured outer tracer, or a constant. */
  varFor(x: Array): Var {
    if (x.trace === this) return x.v!;
    const known = this.bound.get(x);
    if (known) return known;
    const v = newVar(x.aval);
    if (x.trace) {
      this.captured.push(x);
      this.captureVars.push(v);
    } else {
      this.consts.push({ v, value: x.hostDataForTracing() });
    }
    this.bound.set(x, v);
    return v;
  }

  addEqn<P extends Prim>(prim: P, inputs: Var[], params: PrimParams[P], aval: AVal): Var {
    const out = newVar(aval);
    this.eqns.push({ prim, inputs, out, params } as Eqn);
    return out;
  }

  /** An equation with several results (scan). */
  addMultiEqn<P extends Prim>(prim: P, inputs: Var[], params: PrimParams[P], avals: readonly AVal[]): Var[] {
    const outs = avals.map(newVar);
    this.eqns.push({ prim, inputs, out: outs[0]!, outs, params } as Eqn);
    return outs;
  }

  /** Closes the trace into a program whose outputs are `outs` (dead equations removed). */
  finish(name: string, outs: readonly Array[]): Program {
    const outputs = outs.map((x) => this.varFor(x));
    const live = new Set<number>(outputs.map((v) => v.id));
    const eqns: Eqn[] = [];
    for (let i = this.eqns.length - 1; i >= 0; i--) {
      const e = this.eqns[i]!;
      if (!eqnOuts(e).some((o) => live.has(o.id))) continue;
      eqns.push(e);
      for (const v of e.inputs) live.add(v.id);
    }
    eqns.reverse();
    return {
      name,
      inputs: [...this.inputs, ...this.captureVars],
      consts: this.consts.filter((c) => live.has(c.v.id)),
      eqns,
      outputs,
    };
  }
}

export function currentTrace(): Trace | undefined {
  return stack[stack.length - 1];
}

/** Runs `fn` with a fresh innermost trace; the trace is closed (inactive) afterwards, even on error. */
export function withNewTrace<R>(fn: (t: Trace) => R): R {
  const t = new Trace(stack.length);
  stack.push(t);
  try {
    return fn(t);
  } finally {
    stack.pop();
    t.active = false;
  }
}
