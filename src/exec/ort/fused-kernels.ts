// Chains of equations that ONNX Runtime computes in one kernel of its own, found in the IR before
// lowering: an RMS norm (x · rsqrt(mean(x²) + eps) · w: nine nodes) becomes one
// SimplifiedLayerNormalization (ORT's RMS norm kernel), and an argmax over the last
// axis (max, compare, select, min: seven passes over greedy decode's logits) one TopK, and a rotary
// position embedding (x · cos + rotate_half(x) · sin: two slices, a negation, a concatenation, two
// products and a sum) one RotaryEmbedding (ORT's contrib kernel). A decode step of llama-small
// ran 366 nodes, each costing the executor its dispatch whatever it computes; these chains were 108 of
// them. Only chains whose inner values nothing else reads are fused; the values agree with the
// composed lowering to rounding (the kernels sum and scale in another order).
import type { HostArray } from "../../core/dtype.js";
import type { Eqn, PrimParams, Program, Var } from "../../core/ir.js";
import { shapesEqual } from "../../core/shape.js";
import type { GraphBuilder, Val } from "./graph-builder.js";
import { MS_DOMAIN } from "../../io/onnx/proto.js";
import { CONTRACTION_LOWERINGS, nanAmong } from "./lower-contraction.js";
import { softmaxRows } from "./row-kernels.js";

/** The two orders of a binary equation's operands, for matching commutative ops either way round. */
const OPERAND_ORDERS = [
  [0, 1],
  [1, 0],
] as const;

/** Lowers a fused chain at its last equation, given the graph values of the IR vars it reads. */
export type FusedLowering = (g: GraphBuilder, read: (v: Var) => Val) => Val;

export interface Fusions {
  /** Equations computed inside a fused kernel: not lowered on their own. */
  readonly skip: ReadonlySet<Eqn>;
  /** The last equation of each fused chain, and how it is lowered. */
  readonly at: ReadonlyMap<Eqn, FusedLowering>;
}

const FLOAT = new Set(["f32", "f64"]);

/** The fusable chains of `program`; `consts` are the host values of its constants (absent in a loop body). */
export function findFusions(program: Program, consts: ReadonlyMap<number, HostArray>): Fusions {
  const producer = new Map<number, Eqn>();
  const uses = new Map<number, number>();
  for (const e of program.eqns) {
    producer.set(e.out.id, e);
    for (const v of e.inputs) uses.set(v.id, (uses.get(v.id) ?? 0) + 1);
  }
  for (const v of program.outputs) uses.set(v.id, (uses.get(v.id) ?? 0) + 1);
  const crossEntropyLogits = new Set(program.eqns.filter((e) => e.prim === "softmax_cross_entropy").map((e) => e.inputs[0]!.id));
  const skip = new Set<Eqn>();
  const at = new Map<Eqn, FusedLowering>();
  const m: Matcher = { producer, uses, consts, skip, halves: new Map() };
  // From the last equation back, so a chain is matched whole at its end (the RMS norm with its weight).
  for (const e of [...program.eqns].reverse()) {
    if (skip.has(e)) continue;
    const fused =
      matchRmsNorm(m, e) ??
      matchArgmax(m, e) ??
      matchRotary(m, e) ??
      matchRotaryBackward(m, e) ??
      matchCrossEntropyMax(e, crossEntropyLogits);
    if (!fused) continue;
    for (const inner of fused.chain) skip.add(inner);
    at.set(e, fused.lower);
  }
  return { skip, at };
}

interface Matcher {
  producer: ReadonlyMap<number, Eqn>;
  uses: ReadonlyMap<number, number>;
  consts: ReadonlyMap<number, HostArray>;
  skip: ReadonlySet<Eqn>;
  /** The first halves of rotary cos/sin values already in the graph, by the graph name of the whole: every layer reads one copy. */
  halves: Map<string, Val>;
}

type Match = { chain: Eqn[]; lower: FusedLowering } | undefined;

/** The equation computing `v` if it is `prim`, read `n` times in all, and not already part of a chain. */
function inner<P extends keyof PrimParams>(m: Matcher, v: Var, prim: P, n = 1): Eqn<P> | undefined {
  const e = m.producer.get(v.id);
  if (!e || e.prim !== prim || m.uses.get(v.id) !== n || m.skip.has(e)) return undefined;
  return e as Eqn<P>;
}

const lastAxisOnly = (axes: readonly number[], rank: number) => axes.length === 1 && axes[0] === rank - 1;

/**
 * `v` = max(x) over the last axis, kept as a size-1 axis (reshape) and broadcast back to x's shape:
 * the equations, or undefined.
 */
function maxBroadcastBack(m: Matcher, v: Var, x: Var): Eqn[] | undefined {
  const b = inner(m, v, "broadcast_in_dim");
  if (!b || !b.params.dims.every((d, i) => d === i)) return undefined;
  const r = inner(m, b.inputs[0]!, "reshape");
  const red = r && inner(m, r.inputs[0]!, "reduce_max", 1);
  if (!r || !red) return undefined;
  const rank = b.out.aval.shape.length;
  const source = red.inputs[0]!;
  if (!lastAxisOnly(red.params.axes, rank) || !shapesEqual(source.aval.shape, b.out.aval.shape) || source.id !== x.id) return undefined;
  return [b, r, red];
}

/**
 * The max over the last axis of logits that a softmax cross-entropy also reads (a language model's
 * accuracy): the max the rows' softmax kernel computes with the loss (row-kernels.ts), where the graph
 * has one; else the ordinary lowering.
 */
function matchCrossEntropyMax(e: Eqn, crossEntropyLogits: ReadonlySet<number>): Match {
  if (e.prim !== "reduce_max") return undefined;
  const x = e.inputs[0]!;
  const { axes } = e.params as PrimParams["reduce_max"];
  if (!crossEntropyLogits.has(x.id) || x.aval.dtype !== "f32" || !lastAxisOnly(axes, x.aval.shape.length)) return undefined;
  return {
    chain: [],
    lower: (g, read) => {
      const rows = softmaxRows(g, g.materialize(read(x)));
      if (rows) return g.reshapeActual(rows.max, e.out.aval.shape, e.out.aval.shape);
      return CONTRACTION_LOWERINGS.reduce_max(g, [read(x)], e.params as PrimParams["reduce_max"], e.out.aval);
    },
  };
}

/** The scalar value of `v` if it is a constant (or a constant broadcast), else undefined. */
function constantScalar(m: Matcher, v: Var): { value: number; chain: Eqn[] } | undefined {
  const known = m.consts.get(v.id);
  if (known && known.length === 1) return { value: Number(known[0]), chain: [] };
  const b = inner(m, v, "broadcast_in_dim");
  const c = b && m.consts.get(b.inputs[0]!.id);
  return b && c && c.length === 1 ? { value: Number(c[0]), chain: [b] } : undefined;
}

/**
 * x · rsqrt(Σx²/n + eps) over the last axis, times a weight [n] broadcast along it where one follows
 * → SimplifiedLayerNormalization (the weight its scale; ones when there is none).
 */
function matchRmsNorm(m: Matcher, e: Eqn): Match {
  if (e.prim !== "mul" || e.out.aval.dtype !== "f32") return undefined;
  const norm = normalized(m, e);
  if (norm) return { chain: norm.chain, lower: (g, read) => simplifiedLayerNorm(g, read(norm.x), undefined, norm.eps) };
  // weight · normalized (either order): the weight [n] broadcast along the last axis.
  for (const [wi, ni] of OPERAND_ORDERS) {
    const wb = inner(m, e.inputs[wi]!, "broadcast_in_dim");
    const ne = m.producer.get(e.inputs[ni]!.id);
    const n = ne && m.uses.get(ne.out.id) === 1 && !m.skip.has(ne) ? normalized(m, ne) : undefined;
    const rank = e.out.aval.shape.length;
    if (!wb || !n || wb.inputs[0]!.aval.shape.length !== 1 || wb.params.dims[0] !== rank - 1) continue;
    const w = wb.inputs[0]!;
    if (w.aval.dtype !== "f32") continue;
    return { chain: [wb, ne!, ...n.chain], lower: (g, read) => simplifiedLayerNorm(g, read(n.x), read(w), n.eps) };
  }
  return undefined;
}

/** `e` = x · broadcast(rsqrt(Σx²/n + eps)): x, eps and the equations before `e`, or undefined. */
function normalized(m: Matcher, e: Eqn): { x: Var; eps: number; chain: Eqn[] } | undefined {
  if (e.prim !== "mul") return undefined;
  for (const [xi, ri] of OPERAND_ORDERS) {
    const x = e.inputs[xi]!;
    const rank = x.aval.shape.length;
    const width = x.aval.shape[rank - 1];
    if (x.aval.dtype !== "f32" || rank === 0 || !width || !shapesEqual(x.aval.shape, e.out.aval.shape)) continue;
    const rb = inner(m, e.inputs[ri]!, "broadcast_in_dim");
    const rs = rb && rb.params.dims.every((d, i) => d === i) ? inner(m, rb.inputs[0]!, "rsqrt") : undefined;
    const add = rs && inner(m, rs.inputs[0]!, "add");
    if (!rb || !rs || !add) continue;
    for (const [di, ei] of OPERAND_ORDERS) {
      const div = inner(m, add.inputs[di]!, "div");
      const eps = constantScalar(m, add.inputs[ei]!);
      const count = div && constantScalar(m, div.inputs[1]!);
      const r = div && inner(m, div.inputs[0]!, "reshape");
      const sum = r && inner(m, r.inputs[0]!, "reduce_sum");
      const sq = sum && inner(m, sum.inputs[0]!, "mul");
      if (!div || !eps || !count || count.value !== width || !r || !sum || !sq) continue;
      if (!lastAxisOnly(sum.params.axes, rank) || sq.inputs[0]!.id !== x.id || sq.inputs[1]!.id !== x.id) continue;
      return { x, eps: eps.value, chain: [rb, rs, add, div, r, sum, sq, ...eps.chain, ...count.chain] };
    }
  }
  return undefined;
}

function simplifiedLayerNorm(g: GraphBuilder, x: Val, weight: Val | undefined, eps: number): Val {
  const v = g.materialize(x);
  const width = v.full[v.full.length - 1]!;
  const scale = weight ? g.materialize(weight) : g.constant("f32", [width], new Float32Array(width).fill(1));
  const name = g.node("SimplifiedLayerNormalization", [v.name, scale.name], {
    axis: { kind: "int", value: -1 },
    epsilon: { kind: "float", value: eps },
  });
  return { name, dtype: v.dtype, shape: v.full, full: v.full };
}

/**
 * argmax over the last axis as k.argmax composes it, −max(−select(x == max(x), iota, n)): the first
 * index of the maximum, or n in a row holding NaN (its max is NaN, which equals nothing) → TopK of 1,
 * with that NaN case kept.
 */
function matchArgmax(m: Matcher, e: Eqn): Match {
  if (e.prim !== "neg" || e.out.aval.dtype !== "i32") return undefined;
  const outerMax = inner(m, e.inputs[0]!, "reduce_max");
  const negated = outerMax && inner(m, outerMax.inputs[0]!, "neg");
  const select = negated && inner(m, negated.inputs[0]!, "select");
  if (!outerMax || !negated || !select) return undefined;
  const [isMaxV, iotaV, nV] = select.inputs as [Var, Var, Var];
  const isMax = inner(m, isMaxV, "compare");
  const iota = inner(m, iotaV, "iota");
  const n = constantScalar(m, nV);
  if (!isMax || isMax.params.direction !== "eq" || !iota || !n) return undefined;
  const x = isMax.inputs[0]!;
  const rank = x.aval.shape.length;
  const width = x.aval.shape[rank - 1];
  if (!FLOAT.has(x.aval.dtype) || rank === 0 || !width || n.value !== width || iota.params.dim !== rank - 1) return undefined;
  if (!lastAxisOnly(outerMax.params.axes, rank)) return undefined;
  const maxChain = maxBroadcastBack(m, isMax.inputs[1]!, x);
  if (!maxChain) return undefined;
  return {
    chain: [outerMax, negated, select, isMax, iota, ...n.chain, ...maxChain],
    lower: (g, read) => {
      const v = g.materialize(read(x));
      const shape = v.full.slice(0, -1);
      // TopK of 1 (the lower index first among equal values) rather than ArgMax: ORT's ArgMax compares
      // element by element, 57 µs over greedy decode's [8, 8192] logits against 20 µs.
      const [values, at] = [g.fresh(), g.fresh()];
      g.nodes.push({ op: "TopK", inputs: [v.name, g.int64s([1])], outputs: [values, at], attrs: { axis: { kind: "int", value: -1 } } });
      const top = [...shape, 1];
      const index: Val = g.cast(g.reshape({ name: at, dtype: "i64", shape: top, full: top }, shape), "i32");
      const nan = nanAmong(g, v, [rank - 1], [rank - 1], shape);
      return g.select(nan, g.scalar("i32", width, shape.length), index);
    },
  };
}

/** The shape of a rotation's (or its gradient's) final sum: f32 [...lead, heads, d] with d even, else undefined. */
function rotatedShape(e: Eqn): readonly number[] | undefined {
  const shape = e.out.aval.shape;
  const d = shape[shape.length - 1];
  return e.prim === "add" && e.out.aval.dtype === "f32" && shape.length >= 3 && d && d % 2 === 0 ? shape : undefined;
}

/**
 * x · cos + rotate_half(x) · sin over the last axis (nn/rotary.ts), rotate_half(x) = [-x₂, x₁], with x
 * [...lead, heads, d] and cos, sin [...lead, 1, d] broadcast over the heads, each the same values twice
 * (one value concatenated with itself on the last axis, as rotaryAngles makes them) → one RotaryEmbedding
 * (com.microsoft, non-interleaved): x as [1, rows, heads · d] with rows = Π lead, position i of row i, and
 * the first halves of cos and sin, [rows, d/2], as its tables.
 */
function matchRotary(m: Matcher, e: Eqn): Match {
  const shape = rotatedShape(e);
  if (!shape) return undefined;
  for (const [xi, ri] of OPERAND_ORDERS) {
    const byCos = inner(m, e.inputs[xi]!, "mul");
    const bySin = inner(m, e.inputs[ri]!, "mul");
    if (!byCos || !bySin) continue;
    for (const [r, sv] of [bySin.inputs, [...bySin.inputs].reverse()] as [Var, Var][]) {
      const rotated = rotatedHalves(m, r, shape);
      if (!rotated) continue;
      const x = rotated.x;
      const cv = byCos.inputs[0]!.id === x.id ? byCos.inputs[1]! : byCos.inputs[1]!.id === x.id ? byCos.inputs[0]! : undefined;
      const cos = cv && anglesPerRow(m, cv, shape);
      const sin = anglesPerRow(m, sv, shape);
      if (!cos || !sin) continue;
      return {
        chain: [byCos, bySin, ...rotated.chain, ...cos.chain, ...sin.chain],
        lower: (g, read) => rotaryEmbedding(g, m, read(x), read(cos.v), read(sin.v), shape, false),
      };
    }
  }
  return undefined;
}

/**
 * The gradient of a rotary embedding as autodiff writes it for nn/rotary.ts: with s = g · sin,
 * g · cos + pad(−s[…, :d/2]) after + pad(s[…, d/2:]) before, the two halves of s swapped, one negated
 * (rotate_half's transpose), the three terms added in any order. Since rotate_halfᵀ = −rotate_half and
 * the halves of sin are equal, that is a rotation by the negated angles: one RotaryEmbedding with −sin.
 */
function matchRotaryBackward(m: Matcher, e: Eqn): Match {
  const shape = rotatedShape(e);
  if (!shape) return undefined;
  for (const [oi, ti] of OPERAND_ORDERS) {
    const pair = inner(m, e.inputs[oi]!, "add");
    if (!pair) continue;
    const terms = [pair.inputs[0]!, pair.inputs[1]!, e.inputs[ti]!];
    for (let c = 0; c < 3; c++) {
      const byCos = inner(m, terms[c]!, "mul");
      const [p1, p2] = terms.filter((_, i) => i !== c) as [Var, Var];
      const halves = byCos && (swappedHalves(m, p1, p2, shape) ?? swappedHalves(m, p2, p1, shape));
      if (!byCos || !halves) continue;
      const ct = halves.bySin.inputs.find((v) => byCos.inputs.some((u) => u.id === v.id));
      if (!ct) continue;
      const cv = byCos.inputs[0]!.id === ct.id ? byCos.inputs[1]! : byCos.inputs[0]!;
      const sv = halves.bySin.inputs[0]!.id === ct.id ? halves.bySin.inputs[1]! : halves.bySin.inputs[0]!;
      const cos = anglesPerRow(m, cv, shape);
      const sin = anglesPerRow(m, sv, shape);
      if (!cos || !sin || !shapesEqual(ct.aval.shape, shape)) continue;
      return {
        chain: [pair, byCos, ...halves.chain, ...cos.chain, ...sin.chain],
        lower: (g, read) => rotaryEmbedding(g, m, read(ct), read(cos.v), read(sin.v), shape, true),
      };
    }
  }
  return undefined;
}

/**
 * `lowPad` = pad(−s[…, :d/2]) into the upper half and `highPad` = pad(s[…, d/2:]) into the lower half,
 * with s = a product read by exactly these two slices: the product and the equations.
 */
function swappedHalves(m: Matcher, lowPad: Var, highPad: Var, shape: readonly number[]): { bySin: Eqn<"mul">; chain: Eqn[] } | undefined {
  const rank = shape.length;
  const half = shape[rank - 1]! / 2;
  const padded = (v: Var, low: number, high: number) => {
    const p = inner(m, v, "pad");
    const fits =
      p &&
      p.params.low.every((n, i) => n === (i === rank - 1 ? low : 0)) &&
      p.params.high.every((n, i) => n === (i === rank - 1 ? high : 0));
    return fits && p.params.value === 0 ? p : undefined;
  };
  const upper = padded(lowPad, half, 0);
  const lower = padded(highPad, 0, half);
  const neg = upper && inner(m, upper.inputs[0]!, "neg");
  const first = neg && inner(m, neg.inputs[0]!, "slice");
  const second = lower && inner(m, lower.inputs[0]!, "slice");
  if (!upper || !lower || !neg || !first || !second || first.inputs[0]!.id !== second.inputs[0]!.id) return undefined;
  if (!halfOfLastAxis(first.params, 0, shape) || !halfOfLastAxis(second.params, half, shape)) return undefined;
  const bySin = inner(m, first.inputs[0]!, "mul", 2);
  if (!bySin) return undefined;
  return { bySin, chain: [upper, lower, neg, first, second, bySin] };
}

/**
 * x rotated by its rows' angles (`negate`: by the negated angles) as one RotaryEmbedding (com.microsoft,
 * non-interleaved): x as [1, rows, heads · d], position i of row i, the first halves of cos and sin
 * [rows, d/2] as its tables.
 */
function rotaryEmbedding(g: GraphBuilder, m: Matcher, x: Val, cos: Val, sin: Val, shape: readonly number[], negate: boolean): Val {
  const rank = shape.length;
  const d = shape[rank - 1]!;
  const heads = shape[rank - 2]!;
  const rows = shape.slice(0, -2).reduce((n, s) => n * s, 1);
  const input = g.reshape(g.materialize(x), [1, rows, heads * d]);
  // One table of positions per row count, whichever layer's rotation asks first.
  const positions = g.derivedConstant(`rotary-positions|${rows}`, () => ({
    dtype: "i64",
    shape: [1, rows],
    data: BigInt64Array.from({ length: rows }, (_, i) => BigInt(i)),
  }));
  // Each table's first half (and the negated sine's) made once, read by every layer's rotations.
  const table = (v: Val, negated = false): string => {
    const whole = g.materialize(v);
    const key = `${negated ? "-" : ""}${whole.name}`;
    let half = m.halves.get(key);
    if (!half) {
      const name: string = negated
        ? g.node("Neg", [table(v)])
        : g.node("Slice", [g.reshape(whole, [rows, d]).name, g.int64s([0]), g.int64s([d / 2]), g.int64s([1])]);
      m.halves.set(key, (half = { name, dtype: "f32", shape: [rows, d / 2], full: [rows, d / 2] }));
    }
    return half.name;
  };
  const name = g.node("RotaryEmbedding", [input.name, positions.name, table(cos), table(sin, negate)], undefined, MS_DOMAIN);
  return g.reshape({ name, dtype: "f32", shape: input.shape, full: input.shape }, shape);
}

/** Whether a slice of an array of `shape` is all of it but half its last axis, from `from`. */
function halfOfLastAxis(p: PrimParams["slice"], from: number, shape: readonly number[]): boolean {
  const last = shape.length - 1;
  const half = shape[last]! / 2;
  return p.start.every((s, i) => s === (i === last ? from : 0)) && p.limit.every((l, i) => l === (i === last ? from + half : shape[i]));
}

/** `v` = concatenate([-x[…, d/2:], x[…, :d/2]]) on the last axis (rotate_half) with x of `shape`: x and the equations. */
function rotatedHalves(m: Matcher, v: Var, shape: readonly number[]): { x: Var; chain: Eqn[] } | undefined {
  const rank = shape.length;
  const half = shape[rank - 1]! / 2;
  const cat = inner(m, v, "concatenate");
  if (!cat || cat.params.axis !== rank - 1 || cat.inputs.length !== 2) return undefined;
  const neg = inner(m, cat.inputs[0]!, "neg");
  const hi = neg && inner(m, neg.inputs[0]!, "slice");
  const lo = inner(m, cat.inputs[1]!, "slice");
  if (!neg || !hi || !lo || hi.inputs[0]!.id !== lo.inputs[0]!.id) return undefined;
  const x = lo.inputs[0]!;
  if (!shapesEqual(x.aval.shape, shape)) return undefined;
  if (!halfOfLastAxis(lo.params, 0, shape) || !halfOfLastAxis(hi.params, half, shape)) return undefined;
  return { x, chain: [cat, neg, hi, lo] };
}

/**
 * `v` = angles [...lead, 1, d] (broadcast over the heads of `shape` where it is) whose two halves are
 * equal by construction: concatenate([c, c]) on the last axis of one value c (rotaryAngles' cos and sin of
 * one half), through reshapes, converts, cos or sin.
 * The value (read by other layers too, so not fused) and the broadcast equation.
 */
function anglesPerRow(m: Matcher, v: Var, shape: readonly number[]): { v: Var; chain: Eqn[] } | undefined {
  const rank = shape.length;
  // The broadcast may be read elsewhere too (a training step's backward pass multiplies by the same
  // angles): its source is read either way, and the broadcast is fused only where nothing else reads it.
  const producer = m.producer.get(v.id);
  const b = producer?.prim === "broadcast_in_dim" && !m.skip.has(producer) ? (producer as Eqn<"broadcast_in_dim">) : undefined;
  const source = b ? b.inputs[0]! : v;
  const s = source.aval.shape;
  if (b && !b.params.dims.every((dim, i) => dim === i)) return undefined;
  if (source.aval.dtype !== "f32" || s.length !== rank || s[rank - 2] !== 1 || s[rank - 1] !== shape[rank - 1]) return undefined;
  if (!s.slice(0, -2).every((n, i) => n === shape[i])) return undefined;
  // The halves are equal: walk elementwise functions and reshapes that keep the last axis back to concatenate(f, f).
  let at = m.producer.get(source.id);
  while (at && (at.prim === "cos" || at.prim === "sin" || at.prim === "convert" || at.prim === "reshape")) {
    const from = at.inputs[0]!.aval.shape;
    if (at.prim === "reshape" && from[from.length - 1] !== shape[rank - 1]) return undefined;
    at = m.producer.get(at.inputs[0]!.id);
  }
  if (!at || at.prim !== "concatenate" || at.inputs.length !== 2 || at.inputs[0]!.id !== at.inputs[1]!.id) return undefined;
  if ((at.params as PrimParams["concatenate"]).axis !== at.out.aval.shape.length - 1) return undefined;
  return { v: source, chain: b && m.uses.get(v.id) === 1 ? [b] : [] };
}
