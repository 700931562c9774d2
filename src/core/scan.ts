// scan: a loop as one primitive (JAX's lax.scan), so a program holding K steps or L layers holds the
// step or the layer once. The body is traced once into its own program; values it closes over are
// hoisted into the loop's operands (closure conversion), so every executor lowers a body that holds
// only its inputs.
//
// Differentiation (the JAX way): the forward loop saves residuals (the body values its VJP rules read,
// stacked along the loop axis), then a loop running the other way applies the body's VJP one iteration
// at a time, carrying the cotangents of the carry and of the loop constants.
import { Array } from "./array.js";
import { isFloat } from "./dtype.js";
import { eqnOuts, fmtAVal } from "./ir.js";
import type { AVal, PrimParams, Program, Var } from "./ir.js";
import { flatten, type TreeDef } from "./pytree.js";
import { currentTrace, withNewTrace } from "./trace.js";
import { bindMulti } from "./ops/dispatch.js";
import { asArray, full, fromHost } from "./ops/creation.js";
import { add } from "./ops/elementwise.js";
import { VJP_RULES, attachScanVjp } from "./prims/vjp-rules.js";

type ScanParams = PrimParams["scan"];
type Cts = (Array | null)[];

/** Options of scan. */
export interface ScanOptions {
  /** Iterations; required when there are no xs, else it must equal their leading dimension. */
  length?: number;
  /** Run over indices length-1 … 0 (ys still land at their index). */
  reverse?: boolean;
  /** Name of the body program (in listings and errors). */
  name?: string;
}

const isArrayLeaf = (x: unknown) => x instanceof Array || typeof x === "number" || typeof x === "boolean";

function leavesOf(tree: unknown, what: string): { leaves: Array[]; treedef: TreeDef } {
  const { leaves, treedef } = flatten(tree, isArrayLeaf);
  return {
    leaves: leaves.map((l, i) => {
      if (l instanceof Array) return l;
      if (typeof l === "number" || typeof l === "boolean") return asArray(l);
      if (l === null || l === undefined) return null as unknown as Array;
      throw new TypeError(`${what}: leaf ${i} is ${typeof l}, not an Array or number`);
    }),
    treedef,
  };
}

/** Leaves that are null/undefined (an absent xs or y) are dropped; the tree keeps their place. */
function arrayLeaves(tree: unknown, what: string) {
  const { leaves, treedef } = leavesOf(tree, what);
  return { leaves: leaves.filter((l) => l !== null), all: leaves, treedef };
}

/**
 * Traces `fn` on abstract inputs into a program with no constants: values `fn` closes over (constants,
 * and tracers of enclosing traces) become leading inputs, returned as `hoisted` operands.
 */
export function traceClosed(
  name: string,
  avals: readonly { aval: AVal; weak: boolean }[],
  fn: (ins: Array[]) => Array[],
): { program: Program; hoisted: Array[] } {
  return withNewTrace((t) => {
    const ins = avals.map((a) => t.newInput(a.aval, (tr, v) => Array.traced(tr, v, a.weak)));
    const outs = fn(ins);
    const p = t.finish(name, outs);
    const own = p.inputs.slice(0, avals.length),
      captures = p.inputs.slice(avals.length);
    const program: Program = {
      name,
      inputs: [...p.consts.map((c) => c.v), ...captures, ...own],
      consts: [],
      eqns: p.eqns,
      outputs: p.outputs,
    };
    const hoisted = [...p.consts.map((c) => fromHost(c.value, c.v.aval.shape, c.v.aval.dtype)), ...t.captured];
    return { program, hoisted };
  });
}

/**
 * scan(f, init, xs, {length, reverse}) → [finalCarry, ys], as jax.lax.scan: `f(carry, x)` returns
 * `[carry, y]`; x is a slice of xs (a pytree of arrays sharing a leading axis, or null with `length`);
 * ys are the y's stacked on a new leading axis. The carry must keep its structure, shapes and dtypes.
 */
export function scan<C, X, Y>(f: (carry: C, x: X) => readonly [unknown, Y], init: C, xs: X | null, opts: ScanOptions = {}): [C, Y] {
  const name = opts.name ?? (f.name || "scan_body");
  const c = arrayLeaves(init, "scan init"),
    x = arrayLeaves(xs, "scan xs");
  const lengths = new Set(x.leaves.map((a) => a.shape[0]));
  if (x.leaves.some((a) => a.ndim === 0)) throw new Error("scan: every xs leaf needs a leading axis to scan over");
  if (lengths.size > 1) throw new Error(`scan: xs leaves have different leading dimensions: ${[...lengths].join(", ")}`);
  const length = opts.length ?? [...lengths][0];
  if (length === undefined) throw new Error("scan: give xs or a length");
  if (lengths.size && !lengths.has(length)) throw new Error(`scan: length ${length} but xs have a leading dimension of ${[...lengths][0]}`);

  let yTree: TreeDef | undefined,
    yAll: (Array | null)[] = [];
  const avals = [
    ...c.leaves.map((a) => ({ aval: a.aval, weak: a.weak })),
    ...x.leaves.map((a) => ({ aval: { shape: a.shape.slice(1), dtype: a.dtype }, weak: a.weak })),
  ];
  const { program, hoisted } = traceClosed(name, avals, (ins) => {
    const carryIn = c.treedef.unflatten(ins.slice(0, c.leaves.length));
    let at = c.leaves.length;
    const xIn = x.treedef.unflatten(x.all.map((l) => (l === null ? l : ins[at++]!)));
    const r = f(carryIn as C, xIn as X);
    if (!globalThis.Array.isArray(r) || r.length !== 2) throw new Error(`scan: the body ${name} must return [carry, y]`);
    const co = arrayLeaves(r[0], "scan carry"),
      y = arrayLeaves(r[1], "scan y");
    if (co.treedef.key !== c.treedef.key)
      throw new Error(
        `scan body function carry input and carry output must have equal types: ` +
          `the structures differ (${c.treedef.key} in, ${co.treedef.key} out)`,
      );
    co.leaves.forEach((o, i) => {
      const want = c.leaves[i]!.aval;
      if (o.dtype !== want.dtype || o.shape.join() !== want.shape.join())
        throw new Error(
          `scan body function carry input and carry output must have equal types: ` +
            `carry leaf ${i} is ${fmtAVal(want)} in and ${fmtAVal(o.aval)} out`,
        );
    });
    yTree = y.treedef;
    yAll = y.all;
    return [...co.leaves, ...y.leaves];
  });
  const outs = bindMulti("scan", [...hoisted, ...c.leaves, ...x.leaves], {
    body: program,
    numConsts: hoisted.length,
    numCarry: c.leaves.length,
    length,
    reverse: opts.reverse ?? false,
  });
  const carry = c.treedef.unflatten(outs.slice(0, c.leaves.length));
  let at = c.leaves.length;
  const ys = yTree!.unflatten(yAll.map((l) => (l === null ? l : outs[at++]!)));
  return [carry as C, ys as Y];
}

/** foriLoop(n, (i, carry) => carry, init): the body n times with i = 0 … n-1 (an i32 scalar); a scan with no xs. */
export function foriLoop<C>(n: number, body: (i: Array, carry: C) => C, init: C): C {
  const [[, out]] = scan(
    ([i, carry]: [Array, C]) => [[add(i, 1), body(i, carry)], null] as const,
    [full([], 0, "i32"), init] as [Array, C],
    null,
    { length: n, name: body.name || "fori_body" },
  );
  return out;
}

// ---- reverse mode ----

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
