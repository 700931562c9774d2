// scan → `stablehlo.while`. The loop state is one tuple: an i32 counter, the loop constants and the
// xs (passed through unchanged: the regions use only their own arguments, as JAX lowers loops), the
// carry, and the ys being filled. Each iteration reads its x slices with dynamic_slice and writes its
// y slices with dynamic_update_slice at the same index (length-1-counter when reversed).
import type { AVal, PrimParams, Program } from "../../../../core/ir.js";
import type { FunctionEmitter, Value } from "../emitter.js";
import { i64Array, tensorType } from "../types.js";
import { compare } from "./elementwise.js";
import type { LoweringContext } from "./rule.js";

/** Lowers a body program into `cx.emit` on the given inputs, returning its outputs. */
export type LowerBody = (cx: LoweringContext, program: Program, ins: readonly Value[]) => Value[];

export type ScanRule = (
  cx: LoweringContext,
  ins: readonly Value[],
  params: PrimParams["scan"],
  outs: readonly AVal[],
  lowerBody: LowerBody,
) => Value[];

const I32: AVal = { shape: [], dtype: "i32" };

export const lowerScan: ScanRule = (cx, ins, p, outs, lowerBody) => {
  const { body, numConsts: nc, numCarry: nk, length, reverse } = p;
  const fixed = [...ins.slice(0, nc), ...ins.slice(nc + nk)]; // constants and xs: passed through
  const numX = ins.length - nc - nk;
  const emit = cx.emit;
  const ys0 = outs.slice(nk).map((aval) => emit.splat(aval.dtype, aval.shape, 0));
  const state: Value[] = [emit.splat("i32", [], 0), ...fixed, ...ins.slice(nc, nc + nk), ...ys0];
  const types = state.map((v) => tensorType(v.aval));
  const sig = types.join(", ");

  const region = (write: (e: FunctionEmitter, args: Value[]) => Value[]) => {
    const e = emit.nested();
    const args = state.map((v) => ({ ref: e.fresh(), aval: v.aval }));
    const results = write(e, args);
    return [
      `  ^bb0(${args.map((a, i) => `${a.ref}: ${types[i]}`).join(", ")}):`,
      ...e.body().map((l) => `    ${l}`),
      `    "stablehlo.return"(${results.map((r) => r.ref).join(", ")}) : (${results.map((r) => tensorType(r.aval)).join(", ")}) -> ()`,
    ];
  };
  const cond = region((e, [i]) => [compare(e, "lt", i!, e.splat("i32", [], length))]);
  const step = region((e, args) => {
    const [i, ...rest] = args;
    const consts = rest.slice(0, nc),
      xs = rest.slice(nc, nc + numX),
      carry = rest.slice(nc + numX, nc + numX + nk),
      ys = rest.slice(nc + numX + nk);
    const zero = e.splat("i32", [], 0);
    const at = reverse ? e.op("stablehlo.subtract", [e.splat("i32", [], length - 1), i!], I32) : i!;
    const slices = xs.map((x) => {
      const rest = x.aval.shape.slice(1);
      const one = e.op(
        "stablehlo.dynamic_slice",
        [x, at, ...rest.map(() => zero)],
        { shape: [1, ...rest], dtype: x.aval.dtype },
        `slice_sizes = ${i64Array([1, ...rest])}`,
      );
      return e.op("stablehlo.reshape", [one], { shape: rest, dtype: x.aval.dtype });
    });
    const inner: LoweringContext = { ...cx, emit: e };
    const results = lowerBody(inner, body, [...consts, ...carry, ...slices]);
    const written = results.slice(nk).map((y, j) => {
      const acc = ys[j]!;
      const y1 = e.op("stablehlo.reshape", [y], { shape: [1, ...y.aval.shape], dtype: y.aval.dtype });
      return e.op("stablehlo.dynamic_update_slice", [acc, y1, at, ...y.aval.shape.map(() => zero)], acc.aval);
    });
    const next = e.op("stablehlo.add", [i!, e.splat("i32", [], 1)], I32);
    return [next, ...consts, ...xs, ...results.slice(0, nk), ...written];
  });
  const ref = emit.fresh();
  emit.raw(
    `${ref}:${state.length} = "stablehlo.while"(${state.map((v) => v.ref).join(", ")}) ({`,
    ...cond,
    "}, {",
    ...step,
    `}) : (${sig}) -> (${sig})`,
  );
  const result = (k: number): Value => ({ ref: `${ref}#${k}`, aval: state[k]!.aval });
  const base = 1 + fixed.length;
  return [...outs.slice(0, nk).map((_, j) => result(base + j)), ...outs.slice(nk).map((_, j) => result(base + nk + j))];
};
