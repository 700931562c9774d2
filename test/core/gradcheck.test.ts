// Every differentiable primitive and composite, checked against central finite differences in f64 on
// the reference interpreter, at random shapes (with broadcasting and batch dimensions).
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";

// The engine is specified by the reference interpreter: run these tests there.
k.setDefaultDevice("ref:0");
import { checkGrad, weighted } from "../helpers/gradcheck.js";
import { randInt, randn, randShape, rng } from "../helpers/random.js";

type Make = (r: () => number) => { args: k.Array[]; f: (...xs: k.Array[]) => k.Array; outShape: number[]; h?: number };

const f64 = (data: Float64Array, shape: number[]) => k.array(data, { shape, dtype: "f64" });
const normal = (r: () => number, shape: number[]) =>
  f64(
    randn(
      r,
      shape.reduce((a, b) => a * b, 1),
    ),
    shape,
  );
const positive = (r: () => number, shape: number[]) =>
  f64(
    randn(
      r,
      shape.reduce((a, b) => a * b, 1),
    ).map((v) => Math.abs(v) + 0.5),
    shape,
  );
/** Values spaced apart so that max/min/abs have no ties or kinks within the finite-difference step. */
const spread = (r: () => number, shape: number[]) => {
  const n = shape.reduce((a, b) => a * b, 1);
  const vals = Array.from({ length: n }, (_, i) => (i - n / 2 + 0.37) * 0.25);
  for (let i = n - 1; i > 0; i--) {
    const j = randInt(r, 0, i + 1);
    [vals[i], vals[j]] = [vals[j]!, vals[i]!];
  }
  return f64(Float64Array.from(vals), shape);
};

const unary =
  (f: (x: k.Array) => k.Array, gen = normal): Make =>
  (r) => {
    const shape = randShape(r, randInt(r, 0, 4));
    return { args: [gen(r, shape)], f, outShape: shape };
  };

/** Binary ops with broadcasting: b's shape drops leading dims and sets some dims to 1. */
const binary =
  (f: (a: k.Array, b: k.Array) => k.Array, genA = normal, genB = normal): Make =>
  (r) => {
    const shape = randShape(r, randInt(r, 1, 4));
    const bShape = shape.slice(randInt(r, 0, shape.length)).map((d) => (r() < 0.3 ? 1 : d));
    return { args: [genA(r, shape), genB(r, bShape)], f, outShape: shape };
  };

const CASES: Record<string, Make> = {
  neg: unary((x) => x.neg()),
  exp: unary((x) => x.exp()),
  log: unary((x) => x.log(), positive),
  tanh: unary((x) => x.tanh()),
  logistic: unary((x) => k.logistic(x)),
  // x·x: the product rule's two terms on one operand (the rule gives it 2·ct·x whole).
  square: unary((x) => x.mul(x)),
  erf: unary((x) => x.erf()),
  rsqrt: unary((x) => x.rsqrt(), positive),
  sqrt: unary((x) => x.sqrt(), positive),
  abs: unary((x) => x.abs(), spread),
  sin: unary((x) => x.sin()),
  cos: unary((x) => x.cos()),
  add: binary((a, b) => a.add(b)),
  sub: binary((a, b) => a.sub(b)),
  mul: binary((a, b) => a.mul(b)),
  div: binary((a, b) => a.div(b), normal, positive),
  pow: binary((a, b) => a.pow(b), positive, normal),
  max: binary((a, b) => a.maximum(b), spread, spread),
  min: binary((a, b) => a.minimum(b), spread, spread),
  select: (r) => {
    const shape = randShape(r, 2);
    const c = k.array(
      Array.from({ length: shape[0]! * shape[1]! }, () => r() < 0.5),
      { shape, dtype: "bool" },
    );
    return { args: [normal(r, shape), normal(r, shape)], f: (a, b) => k.where(c, a, b), outShape: shape };
  },
  convert: (r) => {
    const shape = randShape(r, 2);
    // Through f32 and back: the gradient passes through the conversions unchanged. Values on a 2^-8
    // grid and a 2^-10 step are exact in f32, so the differences see no rounding.
    const grid = normal(r, shape).dataSync() as Float64Array;
    const x = f64(
      grid.map((v) => Math.round(v * 256) / 256),
      shape,
    );
    return { args: [x], f: (y) => y.astype("f32").astype("f64").mul(1.5), outShape: shape, h: 2 ** -10 };
  },
  broadcast_in_dim: (r) => {
    const shape = randShape(r, 3);
    const src = [shape[0]!, 1, shape[2]!];
    return { args: [normal(r, src)], f: (x) => x.broadcastTo([2, ...shape]), outShape: [2, ...shape] };
  },
  reshape: (r) => ({ args: [normal(r, [2, 3, 4])], f: (x) => x.reshape([4, -1]), outShape: [4, 6] }),
  transpose: (r) => {
    const shape = randShape(r, 3);
    return { args: [normal(r, shape)], f: (x) => x.transpose([2, 0, 1]), outShape: [shape[2]!, shape[0]!, shape[1]!] };
  },
  slice: (r) => ({ args: [normal(r, [4, 5])], f: (x) => x.slice([1, 2], [3, 5]), outShape: [2, 3] }),
  concatenate: (r) => ({ args: [normal(r, [2, 3]), normal(r, [2, 2])], f: (a, b) => k.concat([a, b, a], 1), outShape: [2, 8] }),
  pad: (r) => ({
    args: [normal(r, [3, 4])],
    f: (x) =>
      k.pad(
        x,
        [
          [1, 2],
          [-1, 1],
        ],
        0.5,
      ),
    outShape: [6, 4],
  }),
  "dot_general (matmul)": (r) => {
    const [m, kk, n] = randShape(r, 3);
    return { args: [normal(r, [m!, kk!]), normal(r, [kk!, n!])], f: (a, b) => a.matmul(b), outShape: [m!, n!] };
  },
  "dot_general (batched, broadcast)": (r) => {
    const [b, m, kk, n] = randShape(r, 4, 3);
    return { args: [normal(r, [b!, m!, kk!]), normal(r, [1, kk!, n!])], f: (x, y) => x.matmul(y), outShape: [b!, m!, n!] };
  },
  "dot_general (einsum bqhd,bkhd->bhqk)": (r) => {
    const [b, q, h, d] = randShape(r, 4, 3);
    return {
      args: [normal(r, [b!, q!, h!, d!]), normal(r, [b!, 3, h!, d!])],
      f: (x, y) => k.einsum("bqhd,bkhd->bhqk", x, y),
      outShape: [b!, h!, q!, 3],
    };
  },
  "dot_general (contract two dims)": (r) => ({
    args: [normal(r, [2, 3, 4]), normal(r, [4, 3, 5])],
    f: (x, y) => k.einsum("abc,cbd->ad", x, y),
    outShape: [2, 5],
  }),
  reduce_sum: (r) => ({ args: [normal(r, [2, 3, 4])], f: (x) => x.sum([0, 2]), outShape: [3] }),
  reduce_max: (r) => ({ args: [spread(r, [3, 4])], f: (x) => x.max(1), outShape: [3] }),
  take: (r) => {
    const idx = k.array([2, 0, 2, 1], { dtype: "i32" });
    return { args: [normal(r, [3, 4, 2])], f: (x) => x.take(idx, 1), outShape: [3, 4, 2] };
  },
  scatter_add: (r) => {
    const idx = k.array([1, 0, 1], { dtype: "i32" });
    return { args: [normal(r, [2, 3]), normal(r, [2, 3])], f: (x, u) => k.scatterAdd(x, idx, u, 1), outShape: [2, 3] };
  },
  cumsum: (r) => ({ args: [normal(r, [3, 4])], f: (x) => x.cumsum(1).add(x.cumsum(0, { reverse: true })), outShape: [3, 4] }),
  softmax_cross_entropy: (r) => {
    // Labels out of [0, 5) are clamped: -2 reads class 0 and 9 reads class 4.
    const labels = k.array([3, -2, 0, 9, 4, 1], { dtype: "i32", shape: [2, 3] });
    return { args: [normal(r, [2, 3, 5])], f: (x) => k.softmaxCrossEntropy(x, labels), outShape: [2, 3] };
  },
  // Its own VJP (a second derivative of cross-entropy), in the logits and in the cotangent.
  softmax_cross_entropy_grad: (r) => {
    const labels = k.array([2, 0, 7, 1], { dtype: "u32", shape: [4] });
    return {
      args: [normal(r, [4, 3]), normal(r, [4])],
      f: (x, g) => k.bind("softmax_cross_entropy_grad", [x, labels, g], {}),
      outShape: [4, 3],
    };
  },
  all_reduce: (r) => ({ args: [normal(r, [3])], f: (x) => k.bind("all_reduce", [x], {}).mul(x), outShape: [3] }),
  // ---- composites ----
  softmax: (r) => ({ args: [normal(r, [3, 5])], f: (x) => k.softmax(x), outShape: [3, 5] }),
  logSoftmax: (r) => ({ args: [normal(r, [3, 5])], f: (x) => k.logSoftmax(x, 0), outShape: [3, 5] }),
  logsumexp: (r) => ({ args: [normal(r, [4, 3])], f: (x) => k.logsumexp(x, 1), outShape: [4] }),
  layerNorm: (r) => ({
    args: [normal(r, [2, 3, 6]), normal(r, [6]), normal(r, [6])],
    f: (x, g, b) => k.layerNorm(x, g, b, 1e-5),
    outShape: [2, 3, 6],
  }),
  gelu: unary((x) => k.gelu(x)),
  sigmoid: unary((x) => k.sigmoid(x)),
  geluTanh: unary((x) => k.geluTanh(x)),
  silu: unary((x) => k.silu(x)),
  dropout: (r) => {
    const key = k.randomKey(7);
    return { args: [normal(r, [4, 5])], f: (x) => k.dropout(key, x, 0.3), outShape: [4, 5] };
  },
  crossEntropy: (r) => {
    const labels = k.array([3, -100, 0, 4, -100, 1], { dtype: "i32", shape: [2, 3] });
    return { args: [normal(r, [2, 3, 5])], f: (x) => k.crossEntropy(x, labels), outShape: [] };
  },
  mean: (r) => ({ args: [normal(r, [3, 4])], f: (x) => x.mean(0, { keepDims: true }), outShape: [1, 4] }),
  var: (r) => ({ args: [normal(r, [3, 4])], f: (x) => x.var(1), outShape: [3] }),
  takeAlongLastAxis: (r) => {
    const idx = k.array(
      [
        [1, 0],
        [2, 2],
      ],
      { dtype: "i32" },
    );
    return { args: [normal(r, [2, 2, 3])], f: (x) => k.takeAlongLastAxis(x, idx), outShape: [2, 2] };
  },
  "cond (traced predicate)": (r) => ({
    args: [normal(r, [3])],
    f: (x) =>
      k.cond(
        x.sum().greater(0),
        (y: k.Array) => y.mul(y),
        (y: k.Array) => y.exp(),
        x,
      ),
    outShape: [3],
  }),
};

for (const [name, make] of Object.entries(CASES)) {
  test(`gradient of ${name} matches finite differences`, () => {
    for (const seed of [1, 2]) {
      const r = rng(seed * 1000 + name.length);
      const { args, f, outShape, h } = make(r);
      const weights = randn(
        r,
        outShape.reduce((a, b) => a * b, 1),
      );
      checkGrad(`${name} (seed ${seed})`, weighted(f, outShape, weights), args, { h });
    }
  });
}

test("stop_gradient passes the value and blocks the gradient", () => {
  // d/dx [x · sg(x) + x] = sg(x) + 1: the stopped factor contributes no derivative of its own.
  const x = k.array([0.5, -2, 3], { dtype: "f64" });
  const g = k.grad((y: k.Array) => y.mul(k.stopGradient(y)).add(y).sum())(x);
  assert.deepEqual(g.toArray(), [1.5, -1, 4]);
});
