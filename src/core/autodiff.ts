// Reverse-mode differentiation over the IR: trace the function once into a program, replay it to get
// the primal values, then walk its equations backwards applying each primitive's VJP rule. Works the
// same eagerly and under jit (where the backward pass becomes part of the compiled program). A loop
// (scan) is differentiated by a loop: its body's backward walk, run the other way.
import { Array } from "./array.js";
import { isFloat } from "./dtype.js";
import { eqnOuts, fmtAVal } from "./ir.js";
import type { AVal, PrimParams, Program, Var } from "./ir.js";
import type { DType } from "./dtype.js";
import { flatten, type TreeDef } from "./pytree.js";
import { currentTrace, withNewTrace } from "./trace.js";
import { replay } from "./interpret.js";
import { bindMulti } from "./ops/dispatch.js";
import { asArray, full } from "./ops/creation.js";
import { add } from "./ops/elementwise.js";
import { VJP_RULES, attachScanVjp, zeroCotangent } from "./prims/vjp-rules.js";
import { traceClosed } from "./scan.js";

type ScanParams = PrimParams["scan"];
type Cts = (Array | null)[];

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
  const { env, outputs: all } = replay(program, [...leaves, ...captured], { bindScan: scanWithResiduals });
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

/** The gradients' type for `argnums` N of arguments A: the argument's own type (a tree of Arrays), or a tuple of them. */
export type GradsOf<A extends readonly unknown[], N> = N extends number
  ? A[N]
  : N extends readonly number[]
    ? { -readonly [I in keyof N]: A[N[I] & number] }
    : never;

/**
 * valueAndGrad(fn)(...args) → [value, grads] for a scalar-valued fn (with hasAux: [[value, aux], grads]).
 * grads mirrors the differentiated argument (or is an array of them when argnums is a list), and has
 * its type: the gradient of a parameter tree is a tree of that type.
 */
export function valueAndGrad<A extends unknown[]>(
  fn: (...args: A) => Array,
  opts?: { argnums?: 0; hasAux?: false },
): (...args: A) => [Array, A[0]];
export function valueAndGrad<A extends unknown[], const N extends number | readonly number[]>(
  fn: (...args: A) => Array,
  opts: { argnums: N; hasAux?: false },
): (...args: A) => [Array, GradsOf<A, N>];
export function valueAndGrad<A extends unknown[], X>(
  fn: (...args: A) => readonly [Array, X],
  opts: { argnums?: 0; hasAux: true },
): (...args: A) => [[Array, X], A[0]];
export function valueAndGrad<A extends unknown[], X, const N extends number | readonly number[]>(
  fn: (...args: A) => readonly [Array, X],
  opts: { argnums: N; hasAux: true },
): (...args: A) => [[Array, X], GradsOf<A, N>];
/** Options known only at run time. */
export function valueAndGrad(fn: (...args: any[]) => any, opts: GradOptions): (...args: any[]) => [any, any];
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

/** grad(fn)(...args) → gradient of a scalar fn with respect to args[argnums], of that argument's type. */
export function grad<A extends unknown[]>(fn: (...args: A) => Array, opts?: { argnums?: 0; hasAux?: false }): (...args: A) => A[0];
export function grad<A extends unknown[], const N extends number | readonly number[]>(
  fn: (...args: A) => Array,
  opts: { argnums: N; hasAux?: false },
): (...args: A) => GradsOf<A, N>;
export function grad<A extends unknown[], X>(
  fn: (...args: A) => readonly [Array, X],
  opts: { argnums?: 0; hasAux: true },
): (...args: A) => [A[0], X];
/** Options known only at run time. */
export function grad(fn: (...args: any[]) => any, opts: GradOptions): (...args: any[]) => any;
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

// ---- the backward walk ----

/**
 * Walks `program` backwards from the cotangents in `ctEnv` (by var id), applying each primitive's VJP
 * rule to the primal values in `env`; `ctEnv` ends up holding the cotangent of every var that has one.
 */
export function backwardPass(program: Program, env: ReadonlyMap<number, Array>, ctEnv: Map<number, Array>): void {
  const accumulate = (id: number, c: Array) => {
    const prev = ctEnv.get(id);
    ctEnv.set(id, prev ? add(prev, c) : c);
  };
  for (let k = program.eqns.length - 1; k >= 0; k--) {
    const e = program.eqns[k]!;
    const ins = e.inputs.map((v) => env.get(v.id)!);
    let inCts: Cts;
    if (e.outs) {
      const cts = e.outs.map((o) => ctEnv.get(o.id) ?? null);
      if (cts.every((c) => c === null)) continue;
      const rule = VJP_RULES[e.prim] as unknown as (ct: Cts, i: readonly Array[], o: readonly Array[], p: unknown) => Cts;
      inCts = rule(
        cts,
        ins,
        e.outs.map((o) => env.get(o.id)!),
        e.params,
      );
    } else {
      const ct = ctEnv.get(e.out.id);
      if (!ct) continue;
      const rule = VJP_RULES[e.prim] as (ct: Array, i: readonly Array[], o: Array, p: unknown) => Cts;
      inCts = rule(ct, ins, env.get(e.out.id)!, e.params);
    }
    e.inputs.forEach((v, i) => {
      const c = inCts[i];
      if (c && isFloat(v.aval.dtype)) accumulate(v.id, c);
    });
  }
}

// ---- scan (the JAX way): the forward loop saves residuals (the body values its VJP rules read, stacked
// along the loop axis), then a loop running the other way applies the body's VJP one iteration at a
// time, carrying the cotangents of the carry and of the loop constants.

/** How a scan is differentiated: the forward body with residual outputs, and the backward body. */
interface Adjoint {
  /** The body returning [carry, ys, residuals]. */
  forward: Program;
  numResiduals: number;
  /** The backward body and its hoisted operands (before the forward consts). */
  backward: Program;
  hoisted: Array[];
  /** Indices (among consts, carry, xs) of the differentiable (float) ones. */
  floatConsts: number[];
  floatCarry: number[];
  floatXs: number[];
  floatYs: number[];
}

const adjoints = new WeakMap<Program, Adjoint>();

function adjointOf(p: ScanParams): Adjoint {
  const known = adjoints.get(p.body);
  if (known && currentTraceIsSameAs(known)) return known;
  const { body, numConsts: nc, numCarry: nk } = p;
  const nx = body.inputs.length - nc - nk,
    ny = body.outputs.length - nk;
  const idx = (n: number, from: number, vars: readonly Var[]) =>
    globalThis.Array.from({ length: n }, (_, i) => i).filter((i) => isFloat(vars[from + i]!.aval.dtype));
  const floatConsts = idx(nc, 0, body.inputs),
    floatCarry = idx(nk, nc, body.inputs),
    floatXs = idx(nx, nc + nk, body.inputs),
    floatYs = idx(ny, nk, body.outputs);
  const constVars = body.inputs.slice(0, nc),
    carryVars = body.inputs.slice(nc, nc + nk),
    xVars = body.inputs.slice(nc + nk);
  // Residual candidates: the carry entering each iteration and every value the body computes.
  const candidates: Var[] = [...carryVars, ...body.eqns.flatMap((e) => eqnOuts(e))];
  const slice = (v: Var) => ({ aval: v.aval, weak: false });
  const avals = [
    ...constVars.map(slice),
    ...floatConsts.map((i) => slice(constVars[i]!)),
    ...floatCarry.map((i) => slice(carryVars[i]!)),
    ...candidates.map(slice),
    ...xVars.map(slice),
    ...floatYs.map((j) => slice(body.outputs[nk + j]!)),
  ];
  const { program: traced, hoisted } = traceClosed(`${body.name}_bwd`, avals, (ins) => {
    let at = 0;
    const take = (n: number) => ins.slice(at, (at += n));
    const consts = take(nc),
      acc = take(floatConsts.length),
      ctCarry = take(floatCarry.length),
      res = take(candidates.length),
      xs = take(nx),
      ctYs = take(floatYs.length);
    const env = new Map<number, Array>();
    constVars.forEach((v, i) => env.set(v.id, consts[i]!));
    xVars.forEach((v, i) => env.set(v.id, xs[i]!));
    candidates.forEach((v, i) => env.set(v.id, res[i]!));
    const ctEnv = new Map<number, Array>();
    const seed = (v: Var, c: Array) => ctEnv.set(v.id, ctEnv.has(v.id) ? add(ctEnv.get(v.id)!, c) : c);
    floatCarry.forEach((i, k) => seed(body.outputs[i]!, ctCarry[k]!));
    floatYs.forEach((j, k) => seed(body.outputs[nk + j]!, ctYs[k]!));
    backwardPass(body, env, ctEnv);
    const ctOf = (v: Var) => ctEnv.get(v.id) ?? full(v.aval.shape, 0, v.aval.dtype);
    return [
      ...floatConsts.map((i, k) => add(acc[k]!, ctOf(constVars[i]!))),
      ...floatCarry.map((i) => ctOf(carryVars[i]!)),
      ...floatXs.map((i) => ctOf(xVars[i]!)),
    ];
  });
  // Keep only the residuals the backward body reads.
  const nh = hoisted.length;
  const resStart = nh + nc + floatConsts.length + floatCarry.length;
  const used = new Set<number>(traced.outputs.map((v) => v.id));
  for (const e of traced.eqns) for (const v of e.inputs) used.add(v.id);
  const keep = candidates.map((_, i) => used.has(traced.inputs[resStart + i]!.id));
  const backward: Program = {
    ...traced,
    inputs: traced.inputs.filter((_, i) => i < resStart || i >= resStart + candidates.length || keep[i - resStart]),
  };
  const residuals = candidates.filter((_, i) => keep[i]);
  const forward: Program = { ...body, name: `${body.name}_fwd`, outputs: [...body.outputs, ...residuals] };
  const a: Adjoint = { forward, numResiduals: residuals.length, backward, hoisted, floatConsts, floatCarry, floatXs, floatYs };
  adjoints.set(p.body, a);
  return a;
}

/** Hoisted operands are arrays of the trace that built the adjoint: reuse it only within that trace. */
function currentTraceIsSameAs(a: Adjoint): boolean {
  const t = currentTrace();
  return a.hoisted.every((h) => h.trace === undefined || (h.trace === t && h.trace.active));
}

/** Residuals saved by the forward loop that autodiff replayed, by the loop's first result. */
const savedResiduals = new WeakMap<Array, Array[]>();

/** The forward loop as autodiff replays it: the primal results, with the residuals saved for the VJP. */
export function scanWithResiduals(ins: readonly Array[], p: ScanParams): Array[] {
  const a = adjointOf(p);
  const outs = bindMulti("scan", ins, { ...p, body: a.forward });
  const primal = outs.slice(0, p.body.outputs.length);
  savedResiduals.set(primal[0]!, outs.slice(primal.length));
  return primal;
}

export function scanVjp(cts: readonly (Array | null)[], ins: readonly Array[], outs: readonly Array[], p: ScanParams): Cts {
  const a = adjointOf(p);
  const { numConsts: nc, numCarry: nk, length } = p;
  let residuals = savedResiduals.get(outs[0]!);
  if (!residuals) {
    // Not replayed by autodiff (e.g. a loop inside another loop's body): run the forward again.
    const again = bindMulti("scan", ins, { ...p, body: a.forward });
    residuals = again.slice(p.body.outputs.length);
  }
  const zeros = (aval: AVal) => full(aval.shape, 0, aval.dtype);
  const consts = ins.slice(0, nc),
    xs = ins.slice(nc + nk);
  const ctCarry = a.floatCarry.map((i) => cts[i] ?? zeros(outs[i]!.aval));
  const ctYs = a.floatYs.map((j) => cts[nk + j] ?? zeros(outs[nk + j]!.aval));
  const acc = a.floatConsts.map((i) => zeros(consts[i]!.aval));
  const r = bindMulti("scan", [...a.hoisted, ...consts, ...acc, ...ctCarry, ...residuals, ...xs, ...ctYs], {
    body: a.backward,
    numConsts: a.hoisted.length + nc,
    numCarry: acc.length + ctCarry.length,
    length,
    reverse: !p.reverse,
  });
  const result: Cts = ins.map(() => null);
  let at = 0;
  for (const i of a.floatConsts) result[i] = r[at++]!;
  for (const i of a.floatCarry) result[nc + i] = r[at++]!;
  for (const i of a.floatXs) result[nc + nk + i] = r[at++]!;
  return result;
}

attachScanVjp(scanVjp);
