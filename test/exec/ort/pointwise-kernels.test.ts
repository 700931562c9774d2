// Chains of elementwise ops run as generated C kernels (pointwise-groups.ts, pointwise-codegen.ts,
// native/pointwise-kernels.h): each group is one node of domain kiln.pointwise, and its values are the
// reference interpreter's, for every op a kernel computes, every way an input broadcasts, and the
// integer hashing of dropout's bits (exact). The grouping never makes a node wait on its own output.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../../src/index.js";
import { refExecutor } from "../../../src/index.js";
import type { NodeDef } from "../../../src/io/onnx/proto.js";
import { lowerGraph } from "../../../src/exec/ort/lower-program.js";
import { groupPointwise, POINTWISE_DOMAIN, type ValueInfo } from "../../../src/exec/ort/pointwise-groups.js";
import { pointwiseCompiler } from "../../../src/exec/ort/pointwise-library.js";
import { rng } from "../../helpers/random.js";
import { mismatch, run } from "./compare.js";
import { tempDir } from "../../helpers/temp-dir.js";

const device = refExecutor.devices()[0];
// 8 · 64 · 160 = 81,920 elements: above MIN_GROUP_ELEMENTS, so the chains below are fused.
const [A, B, C] = [8, 64, 160];

function pointwiseNodes(program: k.Program): NodeDef[] {
  return lowerGraph(program, 1, { relayOutConstants: true, pointwise: true }).graph.nodes.filter((n) => n.domain === POINTWISE_DOMAIN);
}

test("this machine builds pointwise kernels (a C compiler and x86-64 Linux: what CI installs)", () => {
  assert.ok(pointwiseCompiler(), "no C compiler found: the kernels below would not be tested");
});

test("float chains with every op and broadcast give the reference's values in generated kernels", async () => {
  const f = (x: k.Array, u: k.Array, rows: k.Array, cols: k.Array, mask: k.Array) => {
    const swish = x.mul(k.logistic(x)).mul(u); // SwiGLU
    const smooth = k
      .gelu(x)
      .add(k.erf(u.mul(0.5)))
      .sub(k.exp(x.mul(x).neg()));
    const norm = x
      .mul(rows)
      .add(cols)
      .div(k.sqrt(k.abs(u).add(1)));
    const picked = k.where(k.compare(x, u, "gt"), x, u.neg()).mul(mask);
    const inverse = k.astype(k.compare(x, 0, "le"), "f32").add(x.mul(x).add(1).pow(-1));
    return [swish, smooth, norm, picked, inverse];
  };
  const program = k
    .jit(f, { name: "pointwise_floats", device })
    .lower(k.zeros([A, B, C]), k.zeros([A, B, C]), k.zeros([A, B, 1]), k.zeros([1, 1, C]), k.zeros([A, 1, C]));
  const fused = pointwiseNodes(program);
  assert.ok(fused.length >= 4, `pointwise nodes: ${fused.length}`);
  const r = rng(11);
  const inputs = [A * B * C, A * B * C, A * B, C, A * C].map((n) => Float32Array.from({ length: n }, () => r() * 8 - 4));
  const want = await run(refExecutor, program, inputs);
  const got = await run(k.ortExecutor, program, inputs);
  want.forEach((w, i) => {
    const bad = mismatch("f32", got[i]!, w, { rtol: 1e-5, atol: 1e-6 });
    assert.ok(!bad, `output ${i}: ${bad}`);
  });
});

test("dropout's bits hash in a generated kernel to exactly the reference's kept elements", async () => {
  const f = (key: k.Array, x: k.Array) => k.dropout(key, x, 0.1, { offset: 12345 });
  const program = k.jit(f, { name: "pointwise_dropout", device }).lower(k.array(Uint32Array.of(1, 2)), k.zeros([A, B, C]));
  assert.ok(
    pointwiseNodes(program).some((n) => n.inputs.length > 1),
    "the hash is fused",
  );
  const x = Float32Array.from({ length: A * B * C }, (_, i) => (i % 13) - 6);
  const inputs = [Uint32Array.of(17, 4242), x];
  const [want] = await run(refExecutor, program, inputs);
  const [got] = await run(k.ortExecutor, program, inputs);
  assert.equal(mismatch("f32", got!, want!, { rtol: 0 }), undefined);
});

test("u32 shifts by the width or more give 0 in a kernel, as in the reference", async () => {
  // An odd size, so that the loop's last elements run outside its vector body, where x86's shift
  // instruction would take the amount mod 32; the last element shifts by 39.
  const shape = [7, 61, 163];
  const n = 7 * 61 * 163;
  const f = (a: k.Array, s: k.Array) => [k.shiftLeft(a, s).add(a), k.shiftRightLogical(a, s).mul(a), k.bitXor(a, s)];
  const program = k.jit(f, { name: "pointwise_shifts", device }).lower(k.zeros(shape, "u32"), k.zeros(shape, "u32"));
  assert.ok(pointwiseNodes(program).length >= 2);
  const a = Uint32Array.from({ length: n }, (_, i) => (i * 2654435761) >>> 0);
  const s = Uint32Array.from({ length: n }, (_, i) => 39 - ((n - 1 - i) % 40));
  const want = await run(refExecutor, program, [a, s]);
  const got = await run(k.ortExecutor, program, [a, s]);
  want.forEach((w, i) => assert.equal(mismatch("u32", got[i]!, w, { rtol: 0 }), undefined, `output ${i}`));
});

/** A node list of elementwise ops over [n] values, from `ops` as [op, inputs, output]. */
function chain(ops: [string, string[], string][], n = 1 << 17): { nodes: NodeDef[]; info: Map<string, ValueInfo> } {
  const info = new Map<string, ValueInfo>();
  for (const [, ins, out] of ops) for (const name of [...ins, out]) info.set(name, { dtype: "f32", shape: [n] });
  return { nodes: ops.map(([op, inputs, o]) => ({ op, inputs, outputs: [o] })), info };
}

test("a group whose value something outside reads joins no later node: every node's inputs come before it", () => {
  // b = x·x feeds both the group {b, c, e} and MatMul d; e reads d, so e cannot join b's group.
  const { nodes, info } = chain([
    ["Mul", ["x", "x"], "b"],
    ["Add", ["b", "x"], "c"],
    ["MatMul", ["b", "w"], "d"],
    ["Mul", ["c", "d"], "e"],
    ["Exp", ["e"], "f"],
  ]);
  const { nodes: out, groups } = groupPointwise(nodes, ["f"], info);
  const defined = new Set(["x", "w"]);
  for (const n of out) {
    for (const i of n.inputs) assert.ok(defined.has(i), `${n.op} reads ${i} before it is computed`);
    for (const o of n.outputs) defined.add(o);
  }
  assert.deepEqual(
    groups.map((g) => g.steps.map((s) => s.op)),
    [
      ["Mul", "Add"],
      ["Mul", "Exp"],
    ],
  );
  // b is read by the MatMul: the first kernel writes it, and c, which the second reads.
  assert.deepEqual(
    groups[0]!.outputs.map((o) => o.name),
    ["b", "c"],
  );
  assert.deepEqual(
    groups[1]!.outputs.map((o) => o.name),
    ["f"],
  );
});

test("two open groups that one node reads merge into one kernel (AdamW's two moments and its update)", () => {
  const { nodes, info } = chain([
    ["Mul", ["m", "b1"], "m1"],
    ["Add", ["m1", "g"], "m2"],
    ["Mul", ["g", "g"], "g2"],
    ["Add", ["v", "g2"], "v2"],
    ["Sqrt", ["v2"], "r"],
    ["Div", ["m2", "r"], "step"],
    ["Sub", ["p", "step"], "p2"],
  ]);
  const { nodes: out, groups } = groupPointwise(nodes, ["p2", "m2", "v2"], info);
  assert.equal(out.length, 1);
  assert.deepEqual(
    groups[0]!.outputs.map((o) => o.name),
    ["m2", "v2", "p2"],
  );
});

const LIBRARY = new URL("../../../src/exec/ort/pointwise-library.js", import.meta.url).href;

test("KILN_POINTWISE_KERNELS=0 lowers without kernels, and another value is refused by name", () => {
  const script =
    `import { pointwiseCompiler, whyNoPointwiseKernels } from ${JSON.stringify(LIBRARY)};` +
    `try { console.log(String(pointwiseCompiler()), whyNoPointwiseKernels()); } catch (e) { console.log(e.message); }`;
  const runWith = (value: string) =>
    spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, KILN_POINTWISE_KERNELS: value },
    }).stdout.trim();
  assert.equal(runWith("0"), "null KILN_POINTWISE_KERNELS=0");
  assert.equal(runWith("yes"), 'KILN_POINTWISE_KERNELS must be 0 (off) or 1 (on where a C compiler is found), got "yes"');
});

test("a library that cannot be built costs speed, not the run: one warning, and the program's values", () => {
  const script =
    `import * as k from ${JSON.stringify(new URL("../../../src/index.js", import.meta.url).href)};` +
    `const f = k.jit((x) => k.sqrt(x.mul(x).add(1)), { name: "unbuildable_pointwise" });` +
    `console.log(f(k.ones([${A}, ${B}, ${C}])).dataSync()[0], f(k.ones([${A}, ${B}, ${C}])).dataSync()[1]);`;
  // The cache directory cannot be made below a file, even by root.
  const dir = tempDir("kiln-pointwise-");
  writeFileSync(join(dir, "file"), "");
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, KILN_CACHE_DIR: join(dir, "file") },
    timeout: 120_000,
  });
  rmSync(dir, { recursive: true, force: true });
  const v = String(Math.fround(Math.SQRT2));
  assert.equal(r.stdout.trim(), `${v} ${v}`, r.stderr);
  assert.equal(r.stderr.match(/pointwise kernels are off for this process/g)?.length, 1, r.stderr);
  assert.match(r.stderr, /ENOTDIR/);
});

test("a library is built once and found in the cache by the next process", () => {
  const dir = tempDir("kiln-pointwise-");
  const script =
    `import * as k from ${JSON.stringify(new URL("../../../src/index.js", import.meta.url).href)};` +
    `const f = k.jit((x) => k.sqrt(x.mul(x).add(1)), { name: "cached_pointwise" });` +
    `console.log(f(k.ones([${A}, ${B}, ${C}])).dataSync()[0]);`;
  const runOnce = () =>
    spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { ...process.env, KILN_CACHE_DIR: dir },
      timeout: 120_000,
    });
  const first = runOnce();
  assert.equal(first.stdout.trim(), String(Math.fround(Math.SQRT2)), first.stderr);
  const libs = readdirSync(`${dir}/pointwise-kernels`).filter((f) => f.endsWith(".so"));
  assert.equal(libs.length, 1, `libraries: ${libs.join(" ")}`);
  const built = statSync(`${dir}/pointwise-kernels/${libs[0]}`).mtimeMs;
  const second = runOnce();
  assert.equal(second.stdout.trim(), first.stdout.trim());
  assert.equal(statSync(`${dir}/pointwise-kernels/${libs[0]}`).mtimeMs, built, "the second process rebuilt the library");
  rmSync(dir, { recursive: true, force: true });
});

test("a language model's loss, gradient and accuracy read the logits in one rows kernel: the reference's values, NaN too", async () => {
  const [rows, vocab] = [300, 331]; // an odd vocabulary: each row's last 11 logits are outside the 16 lanes
  const f = (logits: k.Array, labels: k.Array) => {
    const [loss, grad] = k.valueAndGrad((x: k.Array) => k.softmaxCrossEntropy(x, labels).sum())(logits);
    const top = logits.max(-1);
    return [loss, grad, top, k.astype(k.compare(top, 1e30, "lt"), "f32")];
  };
  const program = k.jit(f, { name: "softmax_rows", device }).lower(k.zeros([rows, vocab]), k.zeros([rows], "i32"));
  const lowered = lowerGraph(program, 1, { relayOutConstants: true, pointwise: true });
  assert.deepEqual(lowered.rowKernels, [{ kind: "softmax-rows", shape: [rows, vocab] }]);
  assert.ok(
    !lowered.graph.nodes.some((n) => ["LogSoftmax", "ReduceMax", "Softmax"].includes(n.op)),
    lowered.graph.nodes.map((n) => n.op).join(" "),
  );
  const r = rng(5);
  const logits = Float32Array.from({ length: rows * vocab }, () => r() * 40 - 20);
  logits[7 * vocab + 300] = NaN; // row 7 holds a NaN: its max, loss and gradient are NaN
  logits[9 * vocab + 330] = 80; // row 9's max is in the last, scalar part of the row
  logits.fill(-Infinity, 11 * vocab + 1, 12 * vocab); // row 11: one finite logit
  const labels = Int32Array.from({ length: rows }, (_, i) => (i * 37) % vocab);
  const want = await run(refExecutor, program, [logits, labels]);
  const got = await run(k.ortExecutor, program, [logits, labels]);
  assert.ok(Number.isNaN(got[0]![0] as number), "the summed loss is NaN: row 7 holds a NaN");
  for (const i of [1, 2, 3]) {
    const bad = mismatch("f32", got[i]!, want[i]!, { rtol: 1e-5, atol: 1e-7 });
    assert.ok(!bad, `output ${i}: ${bad}`);
  }
  // Without the NaN row, the loss itself.
  logits[7 * vocab + 300] = 0;
  const [lossWant] = await run(refExecutor, program, [logits, labels]);
  const [lossGot] = await run(k.ortExecutor, program, [logits, labels]);
  assert.equal(mismatch("f32", lossGot!, lossWant!, { rtol: 1e-5 }), undefined);
});

test("an embedding's gradient adds rows into its table in a rows kernel: the reference's sums, repeated and clamped ids", async () => {
  const [vocab, width, tokens] = [700, 100, 900]; // a width that is not a multiple of the kernel's 16-column bands
  const f = (table: k.Array, ids: k.Array, grads: k.Array) => k.scatterAdd(table, ids, grads, 0);
  const program = k
    .jit(f, { name: "scatter_rows", device })
    .lower(k.zeros([vocab, width]), k.zeros([tokens], "i32"), k.zeros([tokens, width]));
  const lowered = lowerGraph(program, 1, { relayOutConstants: true, pointwise: true });
  assert.deepEqual(lowered.rowKernels, [{ kind: "scatter-rows", rows: vocab, width, updates: tokens }]);
  const r = rng(3);
  const table = Float32Array.from({ length: vocab * width }, () => r() - 0.5);
  const ids = Int32Array.from({ length: tokens }, (_, i) =>
    i % 7 === 0 ? 5 : i === 1 ? -3 : i === 2 ? vocab + 9 : Math.floor(r() * vocab),
  );
  const grads = Float32Array.from({ length: tokens * width }, () => r() * 2 - 1);
  const [want] = await run(refExecutor, program, [table, ids, grads]);
  const [got] = await run(k.ortExecutor, program, [table, ids, grads]);
  // The reference sums in f64; the kernel in f32, in the same order (row 5 takes 129 updates).
  assert.equal(mismatch("f32", got!, want!, { rtol: 1e-5, normwise: true }), undefined);
});

test("a sum along rows joins the kernel computing its operand: the reference's sums, rows of any length", async () => {
  for (const last of [C, 37]) {
    // softmax's gradient p·(dp − Σ p·dp): the products and their row sum in one kernel, the rest in another.
    const f = (p: k.Array, dp: k.Array) => p.mul(dp.sub(p.mul(dp).sum(-1, { keepDims: true })));
    const shape = [16, 128, last]; // at least MIN_GROUP_ELEMENTS for either length
    const program = k.jit(f, { name: `row_sums_${last}`, device }).lower(k.zeros(shape), k.zeros(shape));
    const kernels = lowerGraph(program, 1, { relayOutConstants: true, pointwise: true }).pointwise;
    assert.ok(
      kernels.some((g) => g.steps.some((s) => s.op === "ReduceSum")),
      kernels.map((g) => g.steps.map((s) => s.op).join(",")).join(" | "),
    );
    const r = rng(last);
    const n = 16 * 128 * last;
    const inputs = [0, 1].map(() => Float32Array.from({ length: n }, () => r() * 2 - 1));
    const [want] = await run(refExecutor, program, inputs);
    const [got] = await run(k.ortExecutor, program, inputs);
    assert.equal(mismatch("f32", got!, want!, { rtol: 1e-5, atol: 1e-6 }), undefined, `rows of ${last}`);
  }
});

test("a head's weight gradient multiplies untransposed copies made by a transpose kernel: the reference's product", async () => {
  // Aᵀ·B with A [k, m] of many columns (a head's [tokens, vocabulary] gradient by its [tokens, width]
  // inputs), at sizes that are no multiple of the kernel's 16 × 16 tiles or 64 × 64 blocks.
  const [tokens, vocab, width] = [203, 3100, 37];
  const f = (grad: k.Array, x: k.Array) => k.einsum("tv,tw->vw", grad, x);
  const program = k.jit(f, { name: "head_weight_grad", device }).lower(k.zeros([tokens, vocab]), k.zeros([tokens, width]));
  const lowered = lowerGraph(program, 1, { relayOutConstants: true, pointwise: true });
  assert.deepEqual(lowered.rowKernels, [
    { kind: "transpose", rows: tokens, cols: width },
    { kind: "transpose", rows: width, cols: vocab },
  ]);
  assert.ok(!lowered.graph.nodes.some((n) => n.op === "Gemm"), lowered.graph.nodes.map((n) => n.op).join(" "));
  const r = rng(11);
  const grad = Float32Array.from({ length: tokens * vocab }, () => r() * 2 - 1);
  const x = Float32Array.from({ length: tokens * width }, () => r() * 2 - 1);
  const [want] = await run(refExecutor, program, [grad, x]);
  const [got] = await run(k.ortExecutor, program, [grad, x]);
  assert.equal(mismatch("f32", got!, want!, { rtol: 1e-5, normwise: true }), undefined);
  // A narrower operand keeps Gemm's transA.
  const narrow = k.jit(f, { name: "mlp_weight_grad", device }).lower(k.zeros([tokens, 1024]), k.zeros([tokens, width]));
  assert.deepEqual(lowerGraph(narrow, 1, { relayOutConstants: true, pointwise: true }).rowKernels, []);
});
