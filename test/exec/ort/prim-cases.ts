// Random one-primitive programs, for every primitive: random shapes, dtypes, parameters and values
// (including the awkward ones: NaN, infinities, integer extremes, out-of-range indices, zero divisors).
// With `lazy`, operands first pass through broadcast_in_dim from a smaller shape, which exercises the
// ONNX Runtime executor's lazily broadcast values inside each lowering.
import type { AVal, DType, Eqn, HostArray, Prim, PrimParams, Program, Var } from "../../../src/index.js";
import { SHAPE_RULES, fromNumbers } from "../../../src/index.js";
import { MULTI_RESULT } from "../../../src/core/ir.js";
import { randInt, randn } from "../../helpers/random.js";
import type { Tolerance } from "./compare.js";

export type Rng = () => number;

export interface PrimCase {
  readonly program: Program;
  readonly inputs: readonly HostArray[];
  readonly tol: Tolerance;
}

export const FLOATS: readonly DType[] = ["f32", "f64", "bf16", "f16"];
export const INTS: readonly DType[] = ["i32", "u32", "i64"];
export const NUMERIC: readonly DType[] = [...FLOATS, ...INTS];
export const ALL: readonly DType[] = [...NUMERIC, "bool"];

const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const shapeOf = (r: Rng, rank: number, maxDim = 4) => Array.from({ length: rank }, () => randInt(r, 1, maxDim + 1));
const size = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);

/** Value kinds: which numbers an operand holds. */
type Kind = "normal" | "positive" | "wide" | "shift" | "grid" | { index: number };

function numbers(r: Rng, dtype: DType, n: number, kind: Kind): number[] {
  const xs: number[] = [];
  const g = randn(r, n);
  for (let i = 0; i < n; i++) {
    const u = r();
    if (dtype === "bool") {
      xs.push(u < 0.5 ? 0 : 1);
      continue;
    }
    const float = dtype === "f32" || dtype === "f64" || dtype === "bf16" || dtype === "f16";
    const unsigned = dtype === "u32";
    if (typeof kind === "object") {
      xs.push(randInt(r, unsigned ? 0 : -3, kind.index + 3));
      continue;
    }
    switch (kind) {
      case "normal":
        xs.push(float ? g[i]! * 2 : randInt(r, unsigned ? 0 : -20, 21));
        break;
      case "positive":
        xs.push(float ? Math.abs(g[i]!) + 0.1 : randInt(r, 1, 21));
        break;
      case "shift":
        xs.push(randInt(r, unsigned ? 0 : -3, 41));
        break;
      // Small integers (also as floats): ties for comparisons, max and select; NaN now and then.
      case "grid":
        xs.push(float && u < 0.1 ? NaN : randInt(r, unsigned ? 0 : -3, 4));
        break;
      case "wide": {
        const specials: Record<string, number[]> = {
          i32: [-2147483648, 2147483647, -1, 0, 1, 65536, -65537],
          u32: [0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 65536],
          i64: [-1, 0, 1, 2 ** 40, -(2 ** 40), 123456789012],
          f32: [NaN, Infinity, -Infinity, 3e9, -3e9, 0, -0, 1e-30, 5e9],
          f64: [NaN, Infinity, -Infinity, 3e9, -3e9, 0, -0, 1e-300, 5e9],
          bf16: [NaN, Infinity, -Infinity, 3e9, -3e9, 0, -0],
          f16: [NaN, Infinity, -Infinity, 60000, -60000, 0, -0],
        };
        const s = specials[dtype]!;
        const bits = dtype === "i64" ? 40 : 31;
        xs.push(
          u < 0.4
            ? pick(r, s)
            : float
              ? g[i]! * 100
              : dtype === "u32"
                ? randInt(r, 0, 2 ** 31) * 2 + randInt(r, 0, 2)
                : randInt(r, -(2 ** bits), 2 ** bits),
        );
      }
    }
  }
  return xs;
}

let varId = 0;
const newVar = (aval: AVal): Var => ({ id: varId++, aval });

interface Operand {
  aval: AVal;
  kind: Kind;
}

/**
 * The program applying `prim` to fresh inputs. With `lazy`, an operand may instead be computed by
 * broadcast_in_dim from an input with some dimensions set to 1 (values then repeat along them).
 */
function build<P extends Prim>(
  r: Rng,
  prim: P,
  operands: readonly Operand[],
  params: PrimParams[P],
  tol: Tolerance,
  lazy: boolean,
  name: string = prim,
): PrimCase {
  const inputs: Var[] = [],
    eqns: Eqn[] = [],
    data: HostArray[] = [];
  const args = operands.map(({ aval, kind }) => {
    const rank = aval.shape.length;
    const drop = lazy && rank > 0 && r() < 0.7 ? randInt(r, 0, rank + 1) : 0;
    const keep = aval.shape.slice(drop);
    const small = keep.map((d) => (lazy && r() < 0.5 ? 1 : d));
    const broadcast = lazy && (drop > 0 || small.some((d, i) => d !== keep[i]));
    const src = broadcast ? small : aval.shape;
    const input = newVar({ shape: src, dtype: aval.dtype });
    inputs.push(input);
    data.push(fromNumbers(aval.dtype, numbers(r, aval.dtype, size(src), kind)));
    if (!broadcast) return input;
    const out = newVar(aval);
    eqns.push({ prim: "broadcast_in_dim", inputs: [input], out, params: { shape: aval.shape, dims: src.map((_, i) => drop + i) } } as Eqn);
    return out;
  });
  const result = (SHAPE_RULES[prim] as (ins: readonly AVal[], p: unknown) => AVal | readonly AVal[])(
    args.map((v) => v.aval),
    params,
  );
  if (MULTI_RESULT.has(prim)) {
    const outs = (result as readonly AVal[]).map(newVar);
    eqns.push({ prim, inputs: args, out: outs[0]!, outs, params } as Eqn);
    return { program: { name: `${name}_case`, inputs, consts: [], eqns, outputs: outs }, inputs: data, tol };
  }
  const out = newVar(result as AVal);
  eqns.push({ prim, inputs: args, out, params } as Eqn);
  return { program: { name: `${name}_case`, inputs, consts: [], eqns, outputs: [out] }, inputs: data, tol };
}

const F32_ELEMENTWISE: Tolerance = { rtol: 1e-6 };
/** Tolerances for elementwise results by dtype (f64: a few ulp, as libm implementations differ). */
function elementwiseTol(d: DType): Tolerance {
  return d === "f64" ? { rtol: 1e-12 } : F32_ELEMENTWISE;
}
/** Contractions and reductions: normwise, since the summation order differs. */
function sumTol(d: DType): Tolerance {
  return d === "f64" ? { rtol: 1e-13, normwise: true } : { rtol: 1e-5, normwise: true };
}

type Maker = (r: Rng, lazy: boolean) => PrimCase;

function unary(prim: Prim, dtypes: readonly DType[], kind: Kind = "normal", tol: (d: DType) => Tolerance = elementwiseTol): Maker {
  return (r, lazy) => {
    const dtype = pick(r, dtypes);
    return build(r, prim, [{ aval: { shape: shapeOf(r, randInt(r, 0, 4)), dtype }, kind }], {} as never, tol(dtype), lazy);
  };
}

function binary(
  prim: Prim,
  dtypes: readonly DType[],
  kinds: (d: DType) => [Kind, Kind] = () => ["normal", "normal"],
  params: object = {},
): Maker {
  return (r, lazy) => {
    const dtype = pick(r, dtypes);
    const shape = shapeOf(r, randInt(r, 0, 4));
    const [ka, kb] = kinds(dtype);
    return build(
      r,
      prim,
      [
        { aval: { shape, dtype }, kind: ka },
        { aval: { shape, dtype }, kind: kb },
      ],
      params as never,
      elementwiseTol(dtype),
      lazy,
    );
  };
}

const isF = (d: DType) => FLOATS.includes(d);
const intsWide = (d: DType): [Kind, Kind] => (isF(d) ? ["normal", "normal"] : ["wide", "wide"]);

/** Logits [..., V] of a float dtype and i32/u32 labels [...], some of them out of [0, V) (clamped). */
function crossEntropyOperands(r: Rng): [Operand, Operand] {
  const rows = shapeOf(r, randInt(r, 0, 3)),
    classes = randInt(r, 1, 9);
  return [
    { aval: { shape: [...rows, classes], dtype: pick(r, FLOATS) }, kind: "normal" },
    { aval: { shape: rows, dtype: pick(r, ["i32", "u32"] as const) }, kind: { index: classes } },
  ];
}

export const CASES: { [P in Prim]: Maker } = {
  neg: unary("neg", NUMERIC, "wide"),
  exp: unary("exp", FLOATS),
  log: unary("log", FLOATS, "positive"),
  tanh: unary("tanh", FLOATS),
  // MLAS computes Sigmoid with a rational approximation on inputs clamped to ±18: within 2e-6 relative
  // on this range (1.6e-6 measured), and σ(±18) beyond it.
  logistic: unary("logistic", FLOATS, "normal", (d) => (d === "f64" ? { rtol: 1e-12 } : { rtol: 4e-6 })),
  // f64 erf runs in f32 on ONNX Runtime (no double kernel): f32 accuracy.
  erf: unary("erf", FLOATS, "normal", () => F32_ELEMENTWISE),
  // So does GELU (ORT's Gelu kernel is f32, its tail 0.5·x·(1 + erf) a cancellation: -1.7e-11 at
  // x = -6.9 comes out 0); "wide" holds NaN and infinities.
  gelu: unary("gelu", FLOATS, "wide", () => ({ ...F32_ELEMENTWISE, atol: 1e-6 })),
  // x · Sigmoid(x): MLAS's Sigmoid accuracy (above), and f64 as well.
  silu: unary("silu", FLOATS, "normal", (d) => (d === "f64" ? { rtol: 1e-12 } : { rtol: 4e-6, atol: 1e-7 })),
  rsqrt: unary("rsqrt", FLOATS, "positive"),
  sqrt: unary("sqrt", FLOATS, "positive"),
  abs: unary("abs", NUMERIC, "wide"),
  sin: unary("sin", FLOATS),
  cos: unary("cos", FLOATS),
  is_finite: unary("is_finite", FLOATS, "wide"),
  not: unary("not", [...INTS, "bool"], "wide"),
  add: binary("add", NUMERIC, intsWide),
  sub: binary("sub", NUMERIC, intsWide),
  // The reference multiplies in doubles: i64 products must stay below 2^53 to be exact there.
  mul: binary("mul", NUMERIC, (d) => (d === "i64" ? ["wide", "grid"] : intsWide(d))),
  div: binary("div", NUMERIC, (d) => (isF(d) ? ["normal", "normal"] : ["wide", "grid"])),
  pow: binary("pow", FLOATS, () => ["positive", "normal"]),
  max: binary("max", NUMERIC, (d) => (isF(d) ? ["grid", "grid"] : ["wide", "wide"])),
  min: binary("min", NUMERIC, (d) => (isF(d) ? ["grid", "grid"] : ["wide", "wide"])),
  and: binary("and", [...INTS, "bool"], () => ["wide", "wide"]),
  or: binary("or", [...INTS, "bool"], () => ["wide", "wide"]),
  xor: binary("xor", [...INTS, "bool"], () => ["wide", "wide"]),
  shift_left: binary("shift_left", INTS, () => ["wide", "shift"]),
  shift_right_logical: binary("shift_right_logical", INTS, () => ["wide", "shift"]),
  compare: (r, lazy) =>
    binary("compare", ALL, () => ["grid", "grid"], { direction: pick(r, ["eq", "ne", "lt", "le", "gt", "ge"] as const) })(r, lazy),
  select: (r, lazy) => {
    const dtype = pick(r, ALL),
      shape = shapeOf(r, randInt(r, 0, 4));
    return build(
      r,
      "select",
      [
        { aval: { shape, dtype: "bool" }, kind: "normal" },
        { aval: { shape, dtype }, kind: "wide" },
        { aval: { shape, dtype }, kind: "wide" },
      ],
      {},
      elementwiseTol(dtype),
      lazy,
    );
  },
  convert: (r, lazy) => {
    const from = pick(r, ALL),
      to = pick(r, ALL);
    // The reference has no defined i64 result for infinities and floats beyond 2^63.
    const kind: Kind = to === "i64" && isF(from) ? "normal" : "wide";
    return build(
      r,
      "convert",
      [{ aval: { shape: shapeOf(r, randInt(r, 0, 3)), dtype: from }, kind }],
      { dtype: to },
      elementwiseTol(to),
      lazy,
      `convert_${from}_${to}`,
    );
  },
  stop_gradient: unary("stop_gradient", ALL, "wide"),

  broadcast_in_dim: (r, lazy) => {
    const dtype = pick(r, ALL),
      shape = shapeOf(r, randInt(r, 0, 4));
    const dims = shape.map((_, i) => i).filter(() => r() < 0.6);
    const operand = dims.map((d) => (r() < 0.3 ? 1 : shape[d]!));
    return build(r, "broadcast_in_dim", [{ aval: { shape: operand, dtype }, kind: "wide" }], { shape, dims }, elementwiseTol(dtype), lazy);
  },
  reshape: (r, lazy) => {
    const dtype = pick(r, ALL),
      shape = shapeOf(r, randInt(r, 0, 4));
    const flat = size(shape),
      target: number[] = [];
    let rest = flat;
    while (rest > 1) {
      const d = pick(
        r,
        [...Array(rest).keys()].map((i) => i + 1).filter((i) => rest % i === 0),
      );
      target.push(d);
      rest /= d;
    }
    if (r() < 0.3) target.push(1);
    return build(r, "reshape", [{ aval: { shape, dtype }, kind: "wide" }], { shape: target }, elementwiseTol(dtype), lazy);
  },
  transpose: (r, lazy) => {
    const dtype = pick(r, ALL),
      shape = shapeOf(r, randInt(r, 1, 5));
    const perm = shape.map((_, i) => i).sort(() => r() - 0.5);
    return build(r, "transpose", [{ aval: { shape, dtype }, kind: "wide" }], { perm }, elementwiseTol(dtype), lazy);
  },
  slice: (r, lazy) => {
    const dtype = pick(r, ALL),
      shape = shapeOf(r, randInt(r, 1, 4), 5);
    const start = shape.map((d) => randInt(r, 0, d));
    const limit = shape.map((d, i) => randInt(r, start[i]! + 1, d + 1));
    return build(r, "slice", [{ aval: { shape, dtype }, kind: "wide" }], { start, limit }, elementwiseTol(dtype), lazy);
  },
  concatenate: (r, lazy) => {
    const dtype = pick(r, ALL),
      shape = shapeOf(r, randInt(r, 1, 4)),
      axis = randInt(r, 0, shape.length);
    const ops = Array.from({ length: randInt(r, 1, 4) }, () => ({
      aval: { shape: shape.map((d, i) => (i === axis ? randInt(r, 1, 4) : d)), dtype },
      kind: "wide" as Kind,
    }));
    return build(r, "concatenate", ops, { axis }, elementwiseTol(dtype), lazy);
  },
  pad: (r, lazy) => {
    const dtype = pick(r, ALL),
      shape = shapeOf(r, randInt(r, 1, 4));
    const low = shape.map((d) => randInt(r, -Math.min(1, d - 1), 3)),
      high = shape.map((d, i) => randInt(r, -Math.min(1, d - 1 + Math.min(0, low[i]!)), 3));
    const value = dtype === "bool" ? 1 : dtype === "u32" ? 7 : -1.5;
    return build(
      r,
      "pad",
      [{ aval: { shape, dtype }, kind: "wide" }],
      { low, high, value: isF(dtype) ? value : Math.trunc(value) },
      elementwiseTol(dtype),
      lazy,
    );
  },

  dot_general: (r, lazy) => {
    const dtype = pick(r, NUMERIC);
    const nb = randInt(r, 0, 3),
      nc = randInt(r, 0, 3),
      nl = randInt(r, 0, 3),
      nr = randInt(r, 0, 3);
    const dim = () => randInt(r, 1, 6);
    const batch = Array.from({ length: nb }, dim),
      contract = Array.from({ length: nc }, dim);
    const lf = Array.from({ length: nl }, dim),
      rf = Array.from({ length: nr }, dim);
    // Each operand's dims in a random order: record where each logical dim went.
    const place = (groups: number[][]) => {
      const tagged = groups.flatMap((g, gi) => g.map((d, i) => ({ d, gi, i })));
      const order = tagged.map((_, i) => i).sort(() => r() - 0.5);
      const shape = order.map((k) => tagged[k]!.d);
      const at = (gi: number, i: number) => order.findIndex((k) => tagged[k]!.gi === gi && tagged[k]!.i === i);
      return { shape, at };
    };
    const L = place([batch, contract, lf]),
      R = place([batch, contract, rf]);
    const outDtype = (dtype === "bf16" || dtype === "f16") && r() < 0.5 ? ("f32" as const) : undefined;
    const params = {
      lhsBatch: batch.map((_, i) => L.at(0, i)),
      rhsBatch: batch.map((_, i) => R.at(0, i)),
      lhsContract: contract.map((_, i) => L.at(1, i)),
      rhsContract: contract.map((_, i) => R.at(1, i)),
      ...(outDtype ? { outDtype } : {}),
    };
    const kind: Kind = isF(dtype) ? "normal" : "grid";
    return build(
      r,
      "dot_general",
      [
        { aval: { shape: L.shape, dtype }, kind },
        { aval: { shape: R.shape, dtype }, kind },
      ],
      params,
      sumTol(outDtype ?? dtype),
      lazy,
    );
  },
  reduce_sum: (r, lazy) => {
    const dtype = pick(r, NUMERIC),
      shape = shapeOf(r, randInt(r, 1, 4));
    const axes = shape.map((_, i) => i).filter(() => r() < 0.5);
    return build(r, "reduce_sum", [{ aval: { shape, dtype }, kind: isF(dtype) ? "normal" : "wide" }], { axes }, sumTol(dtype), lazy);
  },
  reduce_max: (r, lazy) => {
    const dtype = pick(r, NUMERIC),
      shape = shapeOf(r, randInt(r, 1, 4));
    const axes = shape.map((_, i) => i).filter(() => r() < 0.5);
    return build(
      r,
      "reduce_max",
      [{ aval: { shape, dtype }, kind: isF(dtype) && r() < 0.5 ? "grid" : "wide" }],
      { axes },
      elementwiseTol(dtype),
      lazy,
    );
  },
  iota: (r, lazy) => {
    const dtype = pick(r, NUMERIC),
      shape = shapeOf(r, randInt(r, 1, 4), 6);
    return build(r, "iota", [], { shape, dim: randInt(r, 0, shape.length), dtype }, elementwiseTol(dtype), lazy);
  },
  take: (r, lazy) => {
    const dtype = pick(r, ALL),
      shape = shapeOf(r, randInt(r, 1, 4)),
      axis = randInt(r, 0, shape.length);
    const idx = { aval: { shape: shapeOf(r, randInt(r, 0, 3)), dtype: pick(r, ["i32", "u32"] as const) }, kind: { index: shape[axis]! } };
    return build(r, "take", [{ aval: { shape, dtype }, kind: "wide" }, idx], { axis }, elementwiseTol(dtype), lazy);
  },
  scatter_add: (r, lazy) => {
    const dtype = pick(r, NUMERIC),
      shape = shapeOf(r, randInt(r, 1, 4)),
      axis = randInt(r, 0, shape.length);
    const idxShape = shapeOf(r, randInt(r, 0, 3));
    const upd = [...shape.slice(0, axis), ...idxShape, ...shape.slice(axis + 1)];
    const kind: Kind = isF(dtype) ? "normal" : "grid";
    return build(
      r,
      "scatter_add",
      [
        { aval: { shape, dtype }, kind },
        { aval: { shape: idxShape, dtype: pick(r, ["i32", "u32"] as const) }, kind: { index: shape[axis]! } },
        { aval: { shape: upd, dtype }, kind },
      ],
      { axis },
      sumTol(dtype),
      lazy,
    );
  },
  cumsum: (r, lazy) => {
    const dtype = pick(r, NUMERIC),
      shape = shapeOf(r, randInt(r, 1, 4), 6);
    return build(
      r,
      "cumsum",
      [{ aval: { shape, dtype }, kind: isF(dtype) ? "normal" : "wide" }],
      { axis: randInt(r, 0, shape.length), reverse: r() < 0.5 },
      sumTol(dtype),
      lazy,
    );
  },
  softmax_cross_entropy: (r, lazy) => {
    const [logits, labels] = crossEntropyOperands(r);
    return build(r, "softmax_cross_entropy", [logits, labels], {}, sumTol(logits.aval.dtype), lazy);
  },
  softmax_cross_entropy_grad: (r, lazy) => {
    const [logits, labels] = crossEntropyOperands(r);
    const ct = { aval: { shape: labels.aval.shape, dtype: logits.aval.dtype }, kind: "normal" as Kind };
    return build(r, "softmax_cross_entropy_grad", [logits, labels, ct], {}, sumTol(logits.aval.dtype), lazy);
  },
  softmax: (r, lazy) => {
    const dtype = pick(r, FLOATS),
      shape = shapeOf(r, randInt(r, 1, 4), 6);
    // Now and then NaN, infinities and ties ("grid", "wide"): rows holding NaN or +inf are all NaN.
    const kind = pick(r, ["normal", "normal", "grid", "wide"] as const);
    return build(r, "softmax", [{ aval: { shape, dtype }, kind }], { axis: randInt(r, 0, shape.length) }, sumTol(dtype), lazy);
  },
  all_reduce: unary("all_reduce", NUMERIC, "normal", sumTol),
  scan: (r, lazy) => {
    const dtype = pick(r, ["f32", "f64", "i32"] as const),
      shape = shapeOf(r, randInt(r, 0, 3)),
      length = randInt(r, 1, 5);
    const nc = randInt(r, 0, 2),
      nk = randInt(r, 1, 3),
      nx = randInt(r, 0, 3);
    const aval = { shape, dtype };
    // The body: s = c0 + x0 (or c0 + c0), times the constant; carries s (and max(c1, s)); ys s - c0,
    // x1 · s, and now and then a carry or an input returned as it is (or twice).
    const ins = Array.from({ length: nc + nk + nx }, () => newVar(aval));
    const [w] = ins.slice(0, nc),
      [c0, c1] = ins.slice(nc, nc + nk),
      [x0, x1] = ins.slice(nc + nk);
    const beqns: Eqn[] = [];
    const op = (prim: Prim, a: Var, b: Var) => {
      const out = newVar(aval);
      beqns.push({ prim, inputs: [a, b], out, params: {} } as Eqn);
      return out;
    };
    let s = op("add", c0!, x0 ?? c0!);
    if (w) s = op("mul", s, w);
    const carry = [s, ...(c1 ? [op("max", c1, s)] : [])];
    const ys = [op("sub", s, c0!), ...(x1 ? [op("mul", x1, s)] : [])];
    if (r() < 0.3) ys.push(c0!);
    if (r() < 0.3) ys.push(s);
    const body: Program = { name: "body", inputs: ins, consts: [], eqns: beqns, outputs: [...carry, ...ys] };
    const operands = ins.map((v, i) => ({
      aval: i < nc + nk ? v.aval : { shape: [length, ...shape], dtype },
      kind: (dtype === "i32" ? "grid" : "normal") as Kind,
    }));
    return build(r, "scan", operands, { body, numConsts: nc, numCarry: nk, length, reverse: r() < 0.5 }, elementwiseTol(dtype), lazy);
  },
};
