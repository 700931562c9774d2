// jit: caching by signature, static arguments, donation, pytrees in and out, nesting, metrics.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";

// The engine is specified by the reference interpreter: run these tests there.
k.setDefaultDevice("ref:0");

test("jit caches by shapes, dtypes, tree structure and static args", () => {
  const f = k.jit((a: k.Array, n: number) => a.mul(n), { staticArgs: [1], name: "scale" });
  const a = k.array([1, 2]);
  assert.deepEqual(f(a, 3).toArray(), [3, 6]);
  assert.deepEqual(f(k.array([5, 6]), 3).toArray(), [15, 18]);
  assert.equal(f.metrics.compiles, 1);
  f(a, 4); // new static value
  f(k.array([1, 2], { dtype: "f64" }), 4); // new dtype
  assert.equal(f.metrics.compiles, 3);
  assert.equal(f.metrics.cacheHits, 1);
});

test("JS numbers are traced as weak scalars (a new learning rate does not recompile)", () => {
  const f = k.jit((a: k.Array, lr: k.Array) => a.mul(lr), { name: "lr" });
  const a = k.array([1, 2], { dtype: "bf16" });
  const y = f(a, 0.5 as unknown as k.Array);
  assert.equal(y.dtype, "bf16");
  f(a, 0.25 as unknown as k.Array);
  assert.equal(f.metrics.compiles, 1);
});

test("pytrees in and out keep their structure", () => {
  const f = k.jit((p: { w: k.Array; b: k.Array[] }) => ({ s: p.w.add(p.b[0]!), t: [p.b[1]!.neg()] }));
  const out = f({ w: k.array([1]), b: [k.array([2]), k.array([3])] });
  assert.deepEqual(out.s.toArray(), [3]);
  assert.deepEqual(out.t[0]!.toArray(), [-3]);
});

test("donated arguments are unusable after the call, with a message saying why", () => {
  const f = k.jit((a: k.Array) => a.add(1), { donateArgs: [0] });
  const a = k.array([1, 2]);
  const b = f(a);
  assert.deepEqual(b.toArray(), [2, 3]);
  assert.throws(() => a.toArray(), /donated/);
});

test("jit inside jit and grad inside jit compile into one program", () => {
  const inner = k.jit((a: k.Array) => a.mul(a));
  const outer = k.jit((a: k.Array) => k.grad((b: k.Array) => inner(b).sum())(a));
  assert.deepEqual(outer(k.array([1, 2, 3])).toArray(), [2, 4, 6]);
  assert.equal(inner.metrics.compiles, 0, "the inner function was inlined, not compiled on its own");
  const prog = outer.lower(k.array([1, 2, 3]));
  assert.ok(prog.eqns.some((e) => e.prim === "mul"));
});

test("eager results equal jitted results", () => {
  const f = (a: k.Array) => k.softmax(a.matmul(a.transpose())).sum(0);
  const a = k.array([
    [1, 2],
    [3, 4],
    [0.5, -1],
  ]);
  assert.deepEqual(k.jit(f)(a).toArray(), f(a).toArray());
});

test("metrics count host transfers", () => {
  k.resetMetrics();
  const a = k.array([1, 2, 3]);
  a.toArray();
  const m = k.metrics();
  assert.equal(m.transfers.toDevice.count, 1);
  assert.equal(m.transfers.toHost.count, 1);
  assert.equal(m.transfers.toHost.bytes, 12);
});

test("KILN_LOG_COMPILES=1 prints a line as each signature starts and ends compiling, and nothing on a cache hit", () => {
  const lines: string[] = [];
  const original = console.error;
  const before = process.env.KILN_LOG_COMPILES;
  console.error = (...args: unknown[]) => void lines.push(args.join(" "));
  try {
    const f = k.jit((a: k.Array) => a.add(1), { name: "plus_one" });
    process.env.KILN_LOG_COMPILES = "0";
    f(k.array([1, 2]));
    assert.deepEqual(lines, []);
    process.env.KILN_LOG_COMPILES = "1";
    f(k.array([1, 2, 3]));
    f(k.array([4, 5, 6]));
  } finally {
    console.error = original;
    if (before === undefined) delete process.env.KILN_LOG_COMPILES;
    else process.env.KILN_LOG_COMPILES = before;
  }
  assert.equal(lines.length, 2, lines.join("\n"));
  assert.equal(lines[0], "kiln: compiling plus_one for f32[3]");
  assert.match(lines[1]!, /^kiln: compiled plus_one in \d+\.\d\d s$/);
});
