// Comparing an executor's results with the reference interpreter's, with tolerances stated per dtype:
//   integers and bool: exact;
//   bf16 / f16: at most `ulps` units in the last place (default 1: the f32 intermediate can round
//     differently from the reference's single rounding of the exact result);
//   f32 / f64: |got - want| ≤ atol + rtol·|want|, where atol = rtol·max|want| for contractions and
//     reductions (their rounding error scales with the sum, not with each element).
import assert from "node:assert/strict";
import { ortExecutor, refExecutor, type DType, type Executor, type HostArray, type Program } from "../../../src/index.js";
import { readElem } from "../../../src/index.js";

export interface Tolerance {
  /** Relative tolerance for f32/f64. */
  rtol: number;
  /** Scale atol by the largest |want| (contractions, reductions). */
  normwise?: boolean;
  /** Absolute tolerance (any float dtype), for values near 0 that a kernel computes by cancellation (GELU's tail). */
  atol?: number;
  /** Allowed distance in units of the last place for bf16/f16. */
  ulps?: number;
}

/** Orders 16-bit float patterns so that adjacent representable values differ by 1. */
function ordered16(bits: number): number {
  return bits & 0x8000 ? -(bits & 0x7fff) : bits;
}

function isNaN16(dtype: DType, bits: number): boolean {
  return dtype === "bf16" ? (bits & 0x7f80) === 0x7f80 && (bits & 0x7f) !== 0 : (bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0;
}

/** The first mismatch as a message, or undefined when `got` matches `want`. */
export function mismatch(dtype: DType, got: HostArray, want: HostArray, tol: Tolerance): string | undefined {
  if (got.length !== want.length) return `length ${got.length} vs ${want.length}`;
  const n = want.length;
  if (dtype === "bf16" || dtype === "f16") {
    const ulps = tol.ulps ?? 1;
    for (let i = 0; i < n; i++) {
      const g = (got as Uint16Array)[i]!,
        w = (want as Uint16Array)[i]!;
      if (isNaN16(dtype, g) && isNaN16(dtype, w)) continue;
      const near = tol.atol !== undefined && Math.abs(readElem(dtype, got, i) - readElem(dtype, want, i)) <= tol.atol;
      if (isNaN16(dtype, g) !== isNaN16(dtype, w) || (Math.abs(ordered16(g) - ordered16(w)) > ulps && !near)) {
        return `element ${i}: got ${readElem(dtype, got, i)} (0x${g.toString(16)}), want ${readElem(dtype, want, i)} (0x${w.toString(16)})`;
      }
    }
    return undefined;
  }
  if (dtype === "f32" || dtype === "f64") {
    let scale = 0;
    if (tol.normwise)
      for (let i = 0; i < n; i++) if (Number.isFinite(want[i] as number)) scale = Math.max(scale, Math.abs(want[i] as number));
    const atol = Math.max(tol.normwise ? tol.rtol * scale : 0, tol.atol ?? 0);
    for (let i = 0; i < n; i++) {
      const g = got[i] as number,
        w = want[i] as number;
      if (Number.isNaN(w) ? Number.isNaN(g) : g === w || Math.abs(g - w) <= atol + tol.rtol * Math.abs(w)) continue;
      return `element ${i}: got ${g}, want ${w} (|diff| ${Math.abs(g - w).toExponential(2)})`;
    }
    return undefined;
  }
  for (let i = 0; i < n; i++) if (got[i] !== want[i]) return `element ${i}: got ${got[i]}, want ${want[i]}`;
  return undefined;
}

/** Runs `program` once on `executor` with host inputs and returns its outputs on the host. */
export async function run(executor: Executor, program: Program, inputs: readonly HostArray[]): Promise<HostArray[]> {
  const exe = executor.compile(program);
  const outs = exe.execute([inputs.map((d, i) => executor.fromHost(d, program.inputs[i]!.aval))])[0]!;
  const host = await Promise.all(outs.map((b) => b.toHost()));
  exe.dispose();
  return host;
}

/** Asserts that ONNX Runtime gives every f32 output of `program` as the reference interpreter does (rtol 1e-5, normwise). */
export async function assertOrtMatchesReference(program: Program, inputs: readonly HostArray[]): Promise<void> {
  const want = await run(refExecutor, program, inputs);
  const got = await run(ortExecutor, program, inputs);
  program.outputs.forEach((_, i) => {
    const bad = mismatch("f32", got[i]!, want[i]!, { rtol: 1e-5, normwise: true });
    assert.ok(!bad, `output ${i}: ${bad}`);
  });
}
