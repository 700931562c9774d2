// The programs whose StableHLO is pinned by golden files: every primitive (with the dtype variants
// whose lowering differs), constants of every dtype, donation, replicas, and a whole training step.
import * as k from "../../../src/index.js";
import type { LowerOptions } from "../../../src/exec/xla/stablehlo/lower.js";
import { ProgramBuilder } from "../../helpers/program-builder.js";
import { adamInit, mlpData, mlpInit, trainStep } from "../../helpers/mlp.js";

export interface LoweringCase {
  readonly name: string;
  readonly program: k.Program;
  readonly options?: LowerOptions;
}

function single<P extends k.Prim>(
  prim: P,
  dtypes: readonly k.DType[],
  shape: readonly number[],
  params: k.PrimParams[P],
  arity: number,
): LoweringCase {
  const b = new ProgramBuilder();
  const outs = dtypes.map((d) =>
    b.eqn(
      prim,
      Array.from({ length: arity }, () => b.input(d, shape)),
      params,
    ),
  );
  return { name: prim, program: b.build(prim, outs) };
}

function build(name: string, f: (b: ProgramBuilder) => k.Var[], options?: LowerOptions): LoweringCase {
  const b = new ProgramBuilder();
  return { name, program: b.build(name, f(b)), ...(options ? { options } : {}) };
}

const UNARY_FLOAT = ["neg", "exp", "log", "tanh", "logistic", "erf", "gelu", "silu", "rsqrt", "sqrt", "sin", "cos", "is_finite"] as const;
const BINARY_NUMERIC = ["add", "sub", "mul", "div", "pow", "max", "min"] as const;
const BITWISE = ["and", "or", "xor", "shift_left", "shift_right_logical"] as const;

function trainingStep(): LoweringCase {
  k.setDefaultDevice("ref:0");
  const { x, y } = mlpData(16, 8, 4);
  const params = mlpInit(8, 16, 4);
  const state = adamInit(params);
  const program = k.jit(trainStep, { name: "mlp_train_step" }).lower(params, state, x, y, k.scalar(0.03));
  // Parameters and optimizer state (the first 13 inputs: 4 params, 4 + 4 moments, step) are donated.
  return { name: "training_step", program, options: { donate: program.inputs.map((_, i) => i < 13) } };
}

/** A small recurrent loop: weights as a loop constant, a carry, scanned inputs and stacked outputs. */
function scanCases(): LoweringCase[] {
  k.setDefaultDevice("ref:0");
  const cell = (w: k.Array) => (h: k.Array, x: k.Array) => {
    const next = h.matmul(w).add(x).tanh();
    return [next, next.sum()] as const;
  };
  const w = k.zeros([3, 3]),
    h = k.zeros([2, 3]),
    xs = k.zeros([4, 2, 3]);
  const forward = k.jit((w: k.Array, h: k.Array, xs: k.Array) => k.scan(cell(w), h, xs), { name: "scan" }).lower(w, h, xs);
  // The gradient: a forward loop saving residuals, then a reversed loop; and a loop with no xs (fori).
  const grad = k
    .jit(
      (w: k.Array, h: k.Array, xs: k.Array) =>
        k.grad((w: k.Array, h: k.Array) => k.scan(cell(w), h, xs, { reverse: true })[1].sum(), { argnums: [0, 1] })(w, h),
      { name: "scan_grad" },
    )
    .lower(w, h, xs);
  const fori = k.jit((h: k.Array) => k.foriLoop(3, (i, c: k.Array) => c.mul(2).add(i.astype("f32")), h), { name: "scan_fori" }).lower(h);
  return [
    { name: "scan", program: forward },
    { name: "scan_grad", program: grad },
    { name: "scan_fori", program: fori },
  ];
}

export function loweringCases(): LoweringCase[] {
  return [
    ...UNARY_FLOAT.map((p) => single(p, ["f32"], [2, 3], {}, 1)),
    single("abs", ["f32", "i32", "u32"], [4], {}, 1),
    single("not", ["bool", "u32", "i64"], [4], {}, 1),
    ...BINARY_NUMERIC.map((p) => single(p, p === "pow" ? ["f32", "bf16"] : ["f32", "i32", "u32"], [2, 3], {}, 2)),
    // i64 bitwise ops work on the low 32 bits (as the reference's JS operators): narrowed, then widened.
    ...BITWISE.map((p) => single(p, p.startsWith("shift") ? ["u32", "i32", "i64"] : ["u32", "bool", "i64"], [4], {}, 2)),
    build("compare", (b) => {
      const dirs: k.CompareDirection[] = ["eq", "ne", "lt", "le", "gt", "ge"];
      return (["f32", "i32", "u32", "bool"] as const).flatMap((d) => {
        const x = b.input(d, [3]),
          y = b.input(d, [3]);
        return dirs.map((direction) => b.eqn("compare", [x, y], { direction }));
      });
    }),
    build("select", (b) => [b.eqn("select", [b.input("bool", [2, 2]), b.input("f32", [2, 2]), b.input("f32", [2, 2])], {})]),
    build("convert", (b) => {
      const pairs: [k.DType, k.DType][] = [
        ["f32", "i32"],
        ["f32", "u32"],
        ["f64", "i64"],
        ["bf16", "i32"],
        ["f32", "bool"],
        ["i32", "bool"],
        ["i32", "f32"],
        ["f32", "bf16"],
        ["bf16", "f32"],
        ["f16", "f32"],
        ["i32", "u32"],
        ["bool", "f32"],
        ["f32", "f32"],
      ];
      return pairs.map(([from, to]) => b.eqn("convert", [b.input(from, [3])], { dtype: to }));
    }),
    single("stop_gradient", ["f32"], [3], {}, 1),
    build("broadcast_in_dim", (b) => [
      b.eqn("broadcast_in_dim", [b.input("f32", [3])], { shape: [2, 3], dims: [1] }),
      b.eqn("broadcast_in_dim", [b.input("f32", [])], { shape: [2, 2], dims: [] }),
      b.eqn("broadcast_in_dim", [b.input("i32", [1, 3])], { shape: [4, 3], dims: [0, 1] }),
    ]),
    build("reshape", (b) => [
      b.eqn("reshape", [b.input("f32", [2, 3])], { shape: [3, 2] }),
      b.eqn("reshape", [b.input("f32", [1])], { shape: [] }),
    ]),
    build("transpose", (b) => [b.eqn("transpose", [b.input("f32", [2, 3, 4])], { perm: [2, 0, 1] })]),
    build("slice", (b) => [b.eqn("slice", [b.input("f32", [4, 5])], { start: [1, 0], limit: [3, 5] })]),
    build("concatenate", (b) => [
      b.eqn("concatenate", [b.input("f32", [2, 1]), b.input("f32", [2, 3]), b.input("f32", [2, 2])], { axis: 1 }),
    ]),
    build("pad", (b) => [
      b.eqn("pad", [b.input("f32", [2, 3])], { low: [1, 0], high: [0, 2], value: 0.5 }),
      b.eqn("pad", [b.input("i32", [3])], { low: [2], high: [1], value: -1 }),
    ]),
    build("dot_general", (b) => [
      b.eqn("dot_general", [b.input("f32", [4, 3]), b.input("f32", [3, 5])], {
        lhsContract: [1],
        rhsContract: [0],
        lhsBatch: [],
        rhsBatch: [],
      }),
      b.eqn("dot_general", [b.input("bf16", [2, 4, 3]), b.input("bf16", [2, 5, 3])], {
        lhsContract: [2],
        rhsContract: [2],
        lhsBatch: [0],
        rhsBatch: [0],
        outDtype: "f32",
      }),
      b.eqn("dot_general", [b.input("f32", [2]), b.input("f32", [3])], { lhsContract: [], rhsContract: [], lhsBatch: [], rhsBatch: [] }),
    ]),
    build("reduce_sum", (b) => [
      b.eqn("reduce_sum", [b.input("f32", [2, 3])], { axes: [1] }),
      b.eqn("reduce_sum", [b.input("bf16", [2, 3, 4])], { axes: [2, 0] }),
      b.eqn("reduce_sum", [b.input("i32", [3])], { axes: [] }),
    ]),
    build("reduce_max", (b) => [
      b.eqn("reduce_max", [b.input("f32", [2, 3])], { axes: [0, 1] }),
      b.eqn("reduce_max", [b.input("i32", [2, 3])], { axes: [1] }),
      b.eqn("reduce_max", [b.input("bf16", [4])], { axes: [0] }),
    ]),
    build("iota", (b) => [
      b.eqn("iota", [], { shape: [2, 3], dim: 1, dtype: "i32" }),
      b.eqn("iota", [], { shape: [4], dim: 0, dtype: "u32" }),
      b.eqn("iota", [], { shape: [3, 2], dim: 0, dtype: "f32" }),
    ]),
    build("take", (b) => [
      b.eqn("take", [b.input("f32", [3, 5, 2]), b.input("i32", [4])], { axis: 1 }),
      b.eqn("take", [b.input("bf16", [6, 4]), b.input("i32", [2, 3])], { axis: 0 }),
      b.eqn("take", [b.input("f32", [5]), b.input("u32", [])], { axis: 0 }),
    ]),
    build("scatter_add", (b) => [
      b.eqn("scatter_add", [b.input("f32", [5, 3]), b.input("i32", [4]), b.input("f32", [4, 3])], { axis: 0 }),
      b.eqn("scatter_add", [b.input("bf16", [2, 6]), b.input("u32", [3]), b.input("bf16", [2, 3])], { axis: 1 }),
    ]),
    build("cumsum", (b) => [
      b.eqn("cumsum", [b.input("f32", [3, 5])], { axis: 1, reverse: false }),
      b.eqn("cumsum", [b.input("i32", [4, 2])], { axis: 0, reverse: true }),
      b.eqn("cumsum", [b.input("bf16", [1])], { axis: 0, reverse: false }),
    ]),
    build("softmax_cross_entropy", (b) => [
      b.eqn("softmax_cross_entropy", [b.input("f32", [2, 3, 5]), b.input("i32", [2, 3])], {}),
      b.eqn("softmax_cross_entropy", [b.input("bf16", [4, 6]), b.input("u32", [4])], {}),
    ]),
    build("softmax_cross_entropy_grad", (b) => [
      b.eqn("softmax_cross_entropy_grad", [b.input("f32", [3, 5]), b.input("i32", [3]), b.input("f32", [3])], {}),
      b.eqn("softmax_cross_entropy_grad", [b.input("bf16", [2, 4]), b.input("u32", [2]), b.input("bf16", [2])], {}),
    ]),
    build("softmax", (b) => [
      b.eqn("softmax", [b.input("f32", [3, 5])], { axis: 1 }),
      b.eqn("softmax", [b.input("f32", [4, 2, 3])], { axis: 0 }),
      b.eqn("softmax", [b.input("bf16", [2, 6])], { axis: 1 }),
    ]),
    build("all_reduce", (b) => [b.eqn("all_reduce", [b.input("f32", [2, 3])], {}), b.eqn("all_reduce", [b.input("bf16", [4])], {})], {
      replicas: 4,
    }),
    build("constants", (b) => [
      b.constant("f32", [2, 2], new Float32Array([1, -2.5, 1e-8, 3.4028234663852886e38])),
      b.constant("f32", [3], new Float32Array([NaN, NaN, NaN])),
      b.constant("f32", [], new Float32Array([-Infinity])),
      b.constant("f64", [2], new Float64Array([0.1, -0])),
      b.constant("bf16", [2], new Uint16Array([0x3f80, 0xc040])),
      b.constant("f16", [], new Uint16Array([0x3c00])),
      b.constant("i32", [3], new Int32Array([-1, 0, 2147483647])),
      b.constant("u32", [2], new Uint32Array([4294967295, 7])),
      b.constant("i64", [2], new BigInt64Array([-9223372036854775808n, 5n])),
      b.constant("bool", [2, 2], new Uint8Array([1, 0, 0, 1])),
      b.constant("bool", [3], new Uint8Array([1, 1, 1])),
      b.constant("f32", [0, 3], new Float32Array(0)),
    ]),
    build(
      "donation",
      (b) => {
        const w = b.input("f32", [4]),
          g = b.input("f32", [4]),
          step = b.input("i32", []);
        return [b.eqn("sub", [w, g], {}), step, b.eqn("reduce_sum", [g], { axes: [0] })];
      },
      { donate: [true, false, true] },
    ),
    ...scanCases(),
    trainingStep(),
  ];
}
