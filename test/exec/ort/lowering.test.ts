// Every primitive lowered to ONNX and run by ONNX Runtime gives the reference interpreter's results, at
// random shapes, dtypes, parameters and values, with plain and lazily broadcast operands. Tolerances
// per dtype are in compare.ts and prim-cases.ts (integers and bool exact, bf16/f16 within 1 ulp, f32
// elementwise 1e-6 relative, f32 contractions and reductions 1e-5 normwise, f64 1e-14/1e-13).
import test from "node:test";
import assert from "node:assert/strict";
import type { HostArray, Prim, Program } from "../../../src/index.js";
import * as k from "../../../src/index.js";
import { printProgram, refExecutor, ortExecutor, readElem } from "../../../src/index.js";
import { rng } from "../../helpers/random.js";
import { mismatch, run } from "./compare.js";
import { CASES } from "./prim-cases.js";

const CASES_PER_PRIM = 48;

function describeInputs(program: Program, inputs: readonly HostArray[]): string {
  return inputs
    .map((d, i) => {
      const v = program.inputs[i]!;
      const vals = Array.from({ length: Math.min(d.length, 24) }, (_, j) => readElem(v.aval.dtype, d, j));
      return `  %${v.id} = [${vals.join(", ")}${d.length > 24 ? ", …" : ""}]`;
    })
    .join("\n");
}

for (const prim of Object.keys(CASES) as Prim[]) {
  test(`${prim} matches the reference interpreter`, async () => {
    const r = rng(0x5eed ^ (prim.length * 7919) ^ (prim.charCodeAt(0) * 104729));
    for (let c = 0; c < CASES_PER_PRIM; c++) {
      const { program, inputs, tol } = CASES[prim](r, c % 2 === 1);
      const want = await run(refExecutor, program, inputs);
      const got = await run(ortExecutor, program, inputs);
      program.outputs.forEach((v, k) => {
        const bad = mismatch(v.aval.dtype, got[k]!, want[k]!, tol);
        assert.ok(
          !bad,
          `${prim} case ${c}: output ${k} (${v.aval.dtype}[${v.aval.shape}]): ${bad}\n` +
            `${printProgram(program)}\n${describeInputs(program, inputs)}`,
        );
      });
    }
  });
}

test("zero-size arrays: elementwise, reductions (max of nothing is -inf), concat, matmul over an empty axis", () => {
  const f = (a: k.Array, b: k.Array) => [a.exp().add(1), a.sum(0), a.max(0), k.concat([a, a], 0), a.transpose().matmul(b), b.sum()];
  const args = (d: k.Device) => [k.zeros([0, 3], "f32").astype("f32"), k.array(new Float32Array(0), { shape: [0, 2], device: d })] as const;
  const run = (d: k.Device) =>
    (k.jit(f, { device: d, name: `empty_${d.id}` })(...args(d)) as k.Array[]).map((x) => [
      x.shape,
      Array.from(x.dataSync() as Float32Array),
    ]);
  assert.deepEqual(run(k.findDevice("cpu:0")), run(k.findDevice("ref:0")));
});

test("constants keep their exact bits: -0 and 0 stay distinct", async () => {
  const negZero = { id: 1, aval: { shape: [], dtype: "f32" as const } },
    zero = { id: 2, aval: { shape: [], dtype: "f32" as const } };
  const one = { id: 3, aval: { shape: [], dtype: "f32" as const } };
  const a = { id: 4, aval: one.aval },
    b = { id: 5, aval: one.aval };
  const program: Program = {
    name: "signed_zeros",
    inputs: [one],
    consts: [
      { v: negZero, value: Float32Array.of(-0) },
      { v: zero, value: Float32Array.of(0) },
    ],
    eqns: [
      { prim: "div", inputs: [one, negZero], out: a, params: {} },
      { prim: "div", inputs: [one, zero], out: b, params: {} },
    ],
    outputs: [a, b],
  };
  const got = await run(ortExecutor, program, [Float32Array.of(1)]);
  assert.deepEqual(
    got.map((x) => x[0]),
    [-Infinity, Infinity],
  );
});
