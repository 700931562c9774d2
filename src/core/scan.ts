// scan: a loop as one primitive (JAX's lax.scan), so a program holding K steps or L layers holds the
// step or the layer once. The body is traced once into its own program; values it closes over are
// hoisted into the loop's operands (closure conversion), so every executor lowers a body that holds
// only its inputs. Its differentiation is reverse mode's, in autodiff.ts.
import { Array } from "./array.js";
import { fmtAVal } from "./ir.js";
import type { AVal, Program } from "./ir.js";
import { flatten, type TreeDef } from "./pytree.js";
import { withNewTrace } from "./trace.js";
import { bindMulti } from "./ops/dispatch.js";
import { asArray, full, fromHost } from "./ops/creation.js";
import { add } from "./ops/elementwise.js";

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
