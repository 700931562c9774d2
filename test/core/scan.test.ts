// scan (lax.scan semantics) on the reference interpreter: results equal the unrolled loop, the shape
// rule refuses a carry that changes type, closed-over values are hoisted into the operands, and
// gradients through a loop (forward, reversed, nested, over a constant, with integer state) pass
// central finite differences in f64.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";

k.setDefaultDevice("ref:0");
import { checkGrad } from "../helpers/gradcheck.js";
import { randn, rng } from "../helpers/random.js";

const f64 = (r: () => number, shape: number[]) =>
  k.array(
    randn(
      r,
      shape.reduce((a, b) => a * b, 1),
    ),
    { shape, dtype: "f64" },
  );
const close = (a: k.Array, b: k.Array, tol = 1e-12) => {
  assert.deepEqual(a.shape, b.shape);
  const x = a.dataSync() as Float64Array,
    y = b.dataSync() as Float64Array;
  x.forEach((v, i) => assert.ok(Math.abs(v - y[i]!) <= tol * Math.max(1, Math.abs(y[i]!)), `element ${i}: ${v} vs ${y[i]}`));
};

/** A small recurrent cell: h' = tanh(h·W + x), y = sum(h'). */
const cell = (w: k.Array) => (h: k.Array, x: k.Array) => {
  const next = h.matmul(w).add(x).tanh();
  return [next, next.sum()] as const;
};

function unrolled(w: k.Array, h: k.Array, xs: k.Array, reverse = false): [k.Array, k.Array] {
  const n = xs.shape[0]!;
  const ys: k.Array[] = new Array(n);
  for (let t = 0; t < n; t++) {
    const i = reverse ? n - 1 - t : t;
    const [next, y] = cell(w)(h, xs.slice([i, 0], [i + 1, xs.shape[1]!]).squeeze(0));
    h = next;
    ys[i] = y;
  }
  return [h, k.stack(ys)];
}

test("scan equals the unrolled loop, forward and reversed, eagerly and under jit", () => {
  const r = rng(1);
  const w = f64(r, [3, 3]).mul(0.5),
    h = f64(r, [3]),
    xs = f64(r, [5, 3]);
  for (const reverse of [false, true]) {
    const [hu, yu] = unrolled(w, h, xs, reverse);
    const [hs, ys] = k.scan(cell(w), h, xs, { reverse });
    close(hs, hu);
    close(ys, yu);
    const [hj, yj] = k.jit((w: k.Array, h: k.Array, xs: k.Array) => k.scan(cell(w), h, xs, { reverse }))(w, h, xs);
    close(hj, hu);
    close(yj, yu);
  }
});

test("a traced scan is one equation whose body closes over the weights as a hoisted operand", () => {
  const r = rng(2);
  const w = f64(r, [3, 3]),
    h = f64(r, [3]),
    xs = f64(r, [4, 3]);
  const program = k.jit((w: k.Array, h: k.Array, xs: k.Array) => k.scan(cell(w), h, xs), { name: "rnn" }).lower(w, h, xs);
  const loops = program.eqns.filter((e) => e.prim === "scan");
  assert.equal(loops.length, 1);
  const p = loops[0]!.params as k.PrimParams["scan"];
  assert.equal(p.body.consts.length, 0);
  assert.equal(loops[0]!.inputs[0]!.id, program.inputs[0]!.id, "W is the loop's first (constant) operand");
  assert.equal(p.length, 4);
  assert.deepEqual(
    k.eqnOuts(loops[0]!).map((v) => v.aval.shape),
    [[3], [4]],
  );
  assert.match(k.printProgram(program), /scan\{body=cell_body|scan\{body=/);
});

test("the carry must keep its type: the error names the leaf and both types", () => {
  const xs = k.zeros([3, 2], "f32");
  assert.throws(
    () => k.scan((c: k.Array, x: k.Array) => [c.add(x).reshape([2, 1]), null] as const, k.zeros([2], "f32"), xs),
    /scan body function carry input and carry output must have equal types: carry leaf 0 is f32\[2\] in and f32\[2,1\] out/,
  );
  assert.throws(
    () => k.scan((c: k.Array) => [c.astype("f64"), null] as const, k.zeros([2], "f32"), null, { length: 2 }),
    /carry leaf 0 is f32\[2\] in and f64\[2\] out/,
  );
  assert.throws(() => k.scan((c: k.Array) => [[c, c], null] as const, k.zeros([2], "f32"), null, { length: 2 }), /structures differ/);
  // The primitive's own rule checks the same thing on hand-built programs.
  const v = (id: number, shape: number[]) => ({ id, aval: { shape, dtype: "f32" as const } });
  const body: k.Program = { name: "b", inputs: [v(1, [2])], consts: [], eqns: [], outputs: [v(2, [3])] };
  assert.throws(
    () => k.SHAPE_RULES.scan([{ shape: [2], dtype: "f32" }], { body, numConsts: 0, numCarry: 1, length: 2, reverse: false }),
    /scan: body function carry input and carry output must have equal types: carry 0 is f32\[2\] in and f32\[3\] out/,
  );
});

test("foriLoop and pytree carries: i runs 0..n-1, ys may be absent", () => {
  const out = k.foriLoop(4, (i, acc: { s: k.Array; p: k.Array }) => ({ s: acc.s.add(i.astype("f32")), p: acc.p.mul(2) }), {
    s: k.scalar(0),
    p: k.scalar(1),
  });
  assert.equal(out.s.item(), 6);
  assert.equal(out.p.item(), 16);
  const [c, ys] = k.scan((c: k.Array, x: { a: k.Array; b: k.Array }) => [c.add(x.a), { d: x.b.mul(c) }] as const, k.scalar(1), {
    a: k.array([1, 2, 3]),
    b: k.array([10, 20, 30]),
  });
  assert.equal(c.item(), 7);
  assert.deepEqual(ys.d.toArray(), [10, 40, 120]);
});

test("gradients through scan pass finite differences (weights, initial carry, xs; forward and reversed)", () => {
  const r = rng(3);
  for (const reverse of [false, true]) {
    const w = f64(r, [3, 3]).mul(0.5),
      h = f64(r, [3]),
      xs = f64(r, [4, 3]),
      wy = f64(r, [4]);
    checkGrad(
      `scan_rnn_${reverse}`,
      (w, h, xs) => {
        const [hn, ys] = k.scan(cell(w), h, xs, { reverse });
        return hn.sum().add(ys.mul(wy).sum());
      },
      [w, h, xs],
    );
  }
});

test("gradients with only the final carry or only ys used, integer state, and a loop inside the body", () => {
  const r = rng(4);
  const w = f64(r, [2, 2]).mul(0.5),
    h = f64(r, [2]),
    xs = f64(r, [3, 2]);
  checkGrad("scan_carry_only", (w, h, xs) => k.scan(cell(w), h, xs)[0].mul(h).sum(), [w, h, xs]);
  checkGrad("scan_ys_only", (w, h, xs) => k.scan(cell(w), h, xs)[1].exp().sum(), [w, h, xs]);
  // An i32 counter in the carry picks a row of the weights (take's index is a residual).
  checkGrad(
    "scan_int_state",
    (w, h) => {
      const [[, hn]] = k.scan(
        ([i, c]: [k.Array, k.Array]) => [[i.add(1), c.mul(k.take(w, i.reshape([1]), 0).reshape([2])).sin()], null] as const,
        [k.scalar(0, "i32"), h] as [k.Array, k.Array],
        null,
        { length: 3 },
      );
      return hn.sum();
    },
    [w, h],
  );
  // Nested loops: the inner loop's VJP runs inside the outer loop's backward body.
  checkGrad(
    "scan_nested",
    (w, h, xs) => {
      const [hn] = k.scan(
        (c: k.Array, x: k.Array) => {
          const [inner] = k.scan((d: k.Array) => [d.matmul(w).add(x).tanh(), null] as const, c, null, { length: 2 });
          return [inner, null] as const;
        },
        h,
        xs,
      );
      return hn.sum();
    },
    [w, h, xs],
  );
});

test("valueAndGrad through a scan under jit computes the loop forward once (residuals are saved, not recomputed)", () => {
  const r = rng(5);
  const w = f64(r, [3, 3]),
    h = f64(r, [3]),
    xs = f64(r, [4, 3]);
  const program = k
    .jit((w: k.Array, h: k.Array, xs: k.Array) => k.valueAndGrad((w: k.Array) => k.scan(cell(w), h, xs)[0].sum())(w))
    .lower(w, h, xs);
  const loops = program.eqns.filter((e) => e.prim === "scan").map((e) => e.params as k.PrimParams["scan"]);
  assert.equal(loops.length, 2, "one forward loop (saving residuals) and one backward loop");
  assert.equal(loops[0]!.reverse, false);
  assert.equal(loops[1]!.reverse, true);
  assert.ok(loops[0]!.body.outputs.length > 2, "the forward body returns residuals besides its carry and y");
});

test("all_reduce inside a loop body sums across replicas on the reference executor", () => {
  const f = (x: k.Array) => k.scan((c: k.Array, xi: k.Array) => [c.add(k.bind("all_reduce", [xi], {})), c] as const, k.scalar(0), x);
  const program = k.jit(f).lower(k.array([1, 2, 3]));
  const exe = k.refExecutor.compile(program, { replicas: 2 });
  const mk = (d: number[]) => [k.refExecutor.fromHost(Float32Array.from(d), { shape: [3], dtype: "f32" })];
  const outs = exe.execute([mk([1, 2, 3]), mk([10, 20, 30])]);
  for (const rep of outs) {
    assert.deepEqual(Array.from(rep[0]!.toHostSync() as Float32Array), [66]);
    assert.deepEqual(Array.from(rep[1]!.toHostSync() as Float32Array), [0, 11, 33]);
  }
});
