// The three XLA rules, as errors and warnings that name the rule, give the remedy and point at the line.
import test from "node:test";
import assert from "node:assert/strict";
import * as k from "../../src/index.js";

// The engine is specified by the reference interpreter: run these tests there.
k.setDefaultDevice("ref:0");

const x = k.array([1, 2, 3]);

test("rule 1: reading a traced value throws with the remedy and the user's line", () => {
  const reads: [string, (a: k.Array) => unknown][] = [
    [".item()", (a) => a.sum().item()],
    [".toArray()", (a) => a.toArray()],
    [".dataSync()", (a) => a.dataSync()],
    ["valueOf (comparison)", (a) => (a.sum() as unknown as number) > 3],
    ["template literal", (a) => `${a}`],
    ["Number()", (a) => Number(a.sum())],
  ];
  for (const [what, read] of reads) {
    assert.throws(
      () =>
        k.jit((a: k.Array) => {
          read(a);
          return a;
        })(x),
      (e: Error) => {
        assert.ok(e instanceof k.TracerReadError, `${what}: ${e}`);
        assert.match(e.message, /XLA rule 1/);
        assert.match(e.message, /where\(cond, a, b\)/);
        assert.match(e.message, /cond\(pred, trueFn, falseFn\)/);
        assert.match(e.message, /indicator-variable trick/);
        assert.match(e.message, /diagnostics\.test\.js:\d+:\d+/, `${what} should point at this file`);
        return true;
      },
    );
  }
  // The same under grad, which traces too.
  assert.throws(() => k.grad((a: k.Array) => (a.sum().item() > 0 ? a.sum() : a.sum().neg()))(x), /XLA rule 1/);
});

test("rule 1 remedies work: where and cond on traced values", () => {
  const f = k.jit((a: k.Array) => k.where(a.greater(1.5), a.mul(10), a));
  assert.deepEqual(f(x).toArray(), [1, 20, 30]);
  const g = k.jit((a: k.Array) =>
    k.cond(
      a.sum().greater(3),
      (b: k.Array) => b.neg(),
      (b: k.Array) => b,
      a,
    ),
  );
  assert.deepEqual(g(x).toArray(), [-1, -2, -3]);
  // A concrete predicate runs only the chosen branch.
  let ran = "";
  k.cond(
    false,
    () => {
      ran += "t";
      return x;
    },
    () => {
      ran += "f";
      return x;
    },
  );
  assert.equal(ran, "f");
});

test("rule 2: data-dependent shapes throw under tracing and show the mask-multiply remedy", () => {
  const mask = k.array([true, false, true], { dtype: "bool" });
  for (const bad of [(a: k.Array) => k.booleanMask(a, mask), (a: k.Array) => k.nonzero(a.greater(1))]) {
    assert.throws(
      () => k.jit(bad)(x),
      (e: Error) => {
        assert.ok(e instanceof k.DataDependentShapeError);
        assert.match(e.message, /XLA rule 2/);
        assert.match(e.message, /multiply by the mask/);
        assert.match(e.message, /\.mul\(m\)\.sum\(\)\.div\(m\.sum\(\)\)/);
        assert.match(e.message, /diagnostics\.test\.js:\d+/);
        return true;
      },
    );
  }
  // Eagerly the data exists, so the same calls work; with a static size nonzero compiles.
  assert.deepEqual(k.booleanMask(x, mask).toArray(), [1, 3]);
  const nz = k.jit((a: k.Array) => k.nonzero(a.greater(1), { size: 4, fillValue: -1 }));
  assert.deepEqual(nz(x).toArray(), [1, 2, -1, -1]);
});

test("rule 3: each new signature recompiles; past the threshold a warning names the changing dims", async () => {
  const warnings: string[] = [];
  const onWarn = (w: Error) => {
    if ((w as { code?: string }).code === "KILN_RECOMPILE") warnings.push(w.message);
  };
  process.on("warning", onWarn);
  try {
    const f = k.jit((a: k.Array) => a.sum(), { name: "varying_len" });
    for (const n of [5, 7, 9, 11, 13]) f(k.zeros([2, n]));
    f(k.zeros([2, 13])); // cache hit
    await new Promise((r) => setImmediate(r));
    assert.equal(f.metrics.compiles, 5);
    assert.equal(f.metrics.cacheHits, 1);
    assert.equal(warnings.length, 2, "warns on the 4th and 5th compile (threshold 3)");
    assert.match(warnings[1]!, /varying_len has been compiled 5 times/);
    assert.match(warnings[1]!, /XLA rule 3/);
    assert.match(warnings[1]!, /input 0 dim 1: 5, 7, 9, 11, 13/);
    assert.match(warnings[1]!, /multiple of 32 or 64/);
  } finally {
    process.off("warning", onWarn);
  }
});

test("a tracer that escapes its function is reported as such", () => {
  let leaked: k.Array | undefined;
  k.jit((a: k.Array) => {
    leaked = a.mul(2);
    return a;
  })(x);
  assert.throws(() => leaked!.add(1), k.EscapedTracerError);
});
