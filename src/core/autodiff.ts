// Reverse-mode differentiation over the IR: trace the function once into a program, replay it to get
// the primal values, then walk its equations backwards applying each primitive's VJP rule. Works the
// same eagerly and under jit (where the backward pass becomes part of the compiled program).
import { Array } from "./array.js";
import { isFloat } from "./dtype.js";
import { fmtAVal } from "./ir.js";
import type { AVal, Program } from "./ir.js";
import type { DType } from "./dtype.js";
import { flatten, type TreeDef } from "./pytree.js";
import { withNewTrace } from "./trace.js";
import { replay } from "./interpret.js";
import { asArray } from "./ops/creation.js";
import { add } from "./ops/elementwise.js";
import { zeroCotangent } from "./prims/vjp-rules.js";
import { backwardPass } from "./scan.js";

function arrayLeaves(tree: unknown, what: string): { leaves: Array[]; treedef: TreeDef } {
  const { leaves, treedef } = flatten(tree, (x) => x instanceof Array || typeof x === "number");
  return {
    leaves: leaves.map((l, i) => {
      if (l instanceof Array) return l;
      if (typeof l === "number") return asArray(l);
      throw new TypeError(`${what}: leaf ${i} is ${typeof l}, not an Array or number`);
    }),
    treedef,
  };
}

/** Traces fn on abstract versions of `primals` into a program (captured outer values appended as inputs). */
export function traceToProgram(name: string, fn: (...args: any[]) => unknown, primals: readonly Array[], treedef: TreeDef) {
  return withNewTrace((t) => {
    const ins = primals.map((p) => t.newInput({ shape: p.shape, dtype: p.dtype }, (tr, v) => Array.traced(tr, v, p.weak)));
    const result = fn(...(treedef.unflatten(ins) as unknown[]));
    const out = arrayLeaves(result, name);
    const program: Program = t.finish(name, out.leaves);
    return { program, captured: [...t.captured], outTree: out.treedef };
  });
}

/**
 * vjp(fn, ...primals) → [outputs, pullback]. `pullback(cotangents)` takes a tree shaped like the
 * outputs and returns the cotangents of the primals (an array of trees, one per argument).
 */
export function vjp<R>(fn: (...args: any[]) => R, ...primals: unknown[]): [R, (ct: unknown) => any[]] {
  const [out, pullback] = vjpWithAux((...a: unknown[]) => [fn(...a), []], primals);
  return [out as R, pullback];
}

/**
 * vjp of a function returning [outputs, aux]: aux values are computed in the same program and returned
 * as they are, without taking part in differentiation.
 */
function vjpWithAux(fn: (...args: any[]) => [unknown, unknown], primals: readonly unknown[]): [any, (ct: unknown) => any[], any] {
  const { leaves, treedef } = arrayLeaves(primals, "vjp");
  let numOut = 0,
    outTreeDef: TreeDef | undefined,
    auxTreeDef: TreeDef | undefined;
  const split = (...a: unknown[]) => {
    const [o, aux] = fn(...a);
    const f = arrayLeaves(o, fn.name || "vjp"),
      g = arrayLeaves(aux, `${fn.name || "vjp"} aux`);
    numOut = f.leaves.length;
    outTreeDef = f.treedef;
    auxTreeDef = g.treedef;
    return [...f.leaves, ...g.leaves];
  };
  const { program, captured } = traceToProgram(fn.name || "vjp", split, leaves, treedef);
  const { env, outputs: all } = replay(program, [...leaves, ...captured], { saveResiduals: true });
  const outputs = all.slice(0, numOut);
  const outVars = program.outputs.slice(0, numOut);

  const pullback = (cts: unknown): any[] => {
    const { leaves: ctLeaves } = arrayLeaves(cts, "vjp cotangent");
    if (ctLeaves.length !== outputs.length) throw new Error(`vjp: cotangent has ${ctLeaves.length} leaves, outputs have ${outputs.length}`);
    const ctEnv = new Map<number, Array>();
    outVars.forEach((v, i) => {
      const c = ctLeaves[i]!;
      if (c.dtype !== v.aval.dtype || c.shape.join() !== v.aval.shape.join()) {
        throw new Error(`vjp: cotangent ${i} is ${fmtAVal(c.aval)} but the output is ${fmtAVal(v.aval)}`);
      }
      if (isFloat(v.aval.dtype)) {
        const prev = ctEnv.get(v.id);
        ctEnv.set(v.id, prev ? add(prev, c) : c);
      }
    });
    backwardPass(program, env, ctEnv);
    const grads = leaves.map((p, i) => ctEnv.get(program.inputs[i]!.id) ?? zeroCotangent(p));
    return treedef.unflatten(grads) as any[];
  };
  return [outTreeDef!.unflatten(outputs), pullback, auxTreeDef!.unflatten(all.slice(numOut))];
}

/** Options of grad and valueAndGrad. */
export interface GradOptions {
  /** Which positional arguments to differentiate (default 0). */
  argnums?: number | readonly number[];
  /** fn returns [loss, aux]; aux is passed through undifferentiated. */
  hasAux?: boolean;
}

/**
 * valueAndGrad(fn)(...args) → [value, grads] for a scalar-valued fn (with hasAux: [[value, aux], grads]).
 * grads mirrors the differentiated argument (or is an array of them when argnums is a list).
 */
export function valueAndGrad(fn: (...args: any[]) => any, opts: GradOptions = {}) {
  const argnums = opts.argnums ?? 0;
  const nums = typeof argnums === "number" ? [argnums] : [...argnums];
  return (...args: any[]): [any, any] => {
    for (const n of nums) if (n >= args.length) throw new Error(`valueAndGrad: argnums ${n} but only ${args.length} arguments were given`);
    const inner = (...d: unknown[]): [unknown, unknown] => {
      const full = args.slice();
      nums.forEach((n, i) => {
        full[n] = d[i];
      });
      const r = fn(...full);
      if (!opts.hasAux) return [r, []];
      if (!globalThis.Array.isArray(r) || r.length !== 2)
        throw new Error("valueAndGrad with hasAux: the function must return [value, aux]");
      return [r[0], r[1]];
    };
    const [value, pullback, aux] = vjpWithAux(
      inner,
      nums.map((n) => args[n]),
    );
    if (!(value instanceof Array) || value.size !== 1 || !isFloat(value.dtype)) {
      throw new Error(`grad needs a function returning a float scalar, got ${value instanceof Array ? fmtAVal(value.aval) : typeof value}`);
    }
    const grads = pullback(asArray(1, value.dtype).reshape(value.shape as number[]));
    const g = typeof argnums === "number" ? grads[0] : grads;
    return [opts.hasAux ? [value, aux] : value, g];
  };
}

/** grad(fn)(...args) → gradient of a scalar fn with respect to args[argnums]. */
export function grad(fn: (...args: any[]) => any, opts: GradOptions = {}) {
  const vg = valueAndGrad(fn, opts);
  return (...args: any[]) => {
    const [value, g] = vg(...args);
    return opts.hasAux ? [g, value[1]] : g;
  };
}

/** A leaf of evalShape's result: the shape and dtype an array would have. */
export class ShapeDtype implements AVal {
  constructor(
    readonly shape: readonly number[],
    readonly dtype: DType,
  ) {}
}

/** The shapes and dtypes fn would return for these arguments, without computing anything (jax.eval_shape). */
export function evalShape(fn: (...args: any[]) => unknown, ...args: unknown[]): any {
  const { leaves, treedef } = arrayLeaves(args, "evalShape");
  const { program, outTree } = traceToProgram(fn.name || "evalShape", fn, leaves, treedef);
  return outTree.unflatten(program.outputs.map((v) => new ShapeDtype(v.aval.shape, v.aval.dtype)));
}

/**
 * Traces fn on abstract stand-ins for `args` (a list of argument trees whose leaves are Arrays) into a
 * program: the building block of jit and of replicated execution.
 */
export function traceProgram(
  name: string,
  fn: (...args: any[]) => unknown,
  args: readonly unknown[],
): { program: Program; outTree: TreeDef; leaves: Array[] } {
  const { leaves, treedef } = arrayLeaves(args, name);
  const { program, captured, outTree } = traceToProgram(name, fn, leaves, treedef);
  if (captured.length) throw new Error(`${name}: the function closed over traced values from an enclosing trace`);
  return { program, outTree, leaves };
}
