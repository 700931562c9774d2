// Precision policies (Lightning's names): which dtype parameters are stored in, which dtype the model
// computes in, and whether the loss is scaled to keep f16 gradients from underflowing.
//   "32" / "32-true"  f32 everywhere
//   "bf16-mixed"      f32 master weights, bf16 activations (weights cast on use)
//   "bf16-true"       bf16 weights and activations (the optimizer's moments stay f32)
//   "16-mixed"        f32 master weights, f16 activations, dynamic loss scaling
// On the CPU, bf16/f16 arithmetic is emulated by rounding every result (ONNX Runtime has no bf16
// kernels), so the numbers are those an accelerator's 16-bit arithmetic would give.
import * as k from "../core/index.js";

/** A training precision: "32", "bf16-mixed", "bf16-true", "16-mixed" (Lightning's names). */
export type PrecisionName = "32" | "32-true" | "bf16-mixed" | "bf16-true" | "16-mixed";
/** The precisions a run can train in (Lightning's names). */
export const PRECISIONS: readonly PrecisionName[] = ["32", "32-true", "bf16-mixed", "bf16-true", "16-mixed"];

/** A precision's dtypes: of the parameters and of the computation, and whether the loss is scaled. */
export interface PrecisionPolicy {
  readonly name: PrecisionName;
  readonly paramDtype: k.DType;
  readonly computeDtype: k.DType;
  readonly lossScaling: boolean;
}

/** The PrecisionPolicy of a precision name; an error for an unknown one. */
export function precisionPolicy(name: string): PrecisionPolicy {
  switch (name) {
    case "32":
    case "32-true":
      return { name, paramDtype: "f32", computeDtype: "f32", lossScaling: false };
    case "bf16-mixed":
      return { name, paramDtype: "f32", computeDtype: "bf16", lossScaling: false };
    case "bf16-true":
      return { name, paramDtype: "bf16", computeDtype: "bf16", lossScaling: false };
    case "16-mixed":
      return { name, paramDtype: "f32", computeDtype: "f16", lossScaling: true };
    default:
      throw new Error(`unknown precision "${name}"; choose one of ${PRECISIONS.join(", ")}`);
  }
}

/** Options of dynamic loss scaling: the starting scale and the growth interval. */
export interface LossScaleOptions {
  /** Starting scale (default 2^16, as PyTorch's GradScaler). */
  initScale?: number;
  /** Steps without overflow before the scale doubles (default 2000). */
  growthInterval?: number;
}

/** Loss-scaler state, carried through the compiled step like the optimizer's. */
export interface LossScaleState {
  scale: k.Array;
  goodSteps: k.Array;
}

/** The starting state of dynamic loss scaling. */
export function lossScaleInit(o: LossScaleOptions = {}): LossScaleState {
  return { scale: k.scalar(o.initScale ?? 2 ** 16), goodSteps: k.scalar(0) };
}

/**
 * Dynamic loss scaling: given gradients of (loss × scale), unscale them, check them, and update the
 * scale — halve it and report the step skipped on overflow, double it after `growthInterval` good steps.
 */
export function unscaleAndCheck<T>(
  scaledGrads: T,
  s: LossScaleState,
  o: LossScaleOptions = {},
): { grads: T; finite: k.Array; next: LossScaleState } {
  const growth = o.growthInterval ?? 2000;
  const grads = k.treeMap((g: k.Array) => g.astype("f32").div(s.scale), scaledGrads);
  const finite = k
    .leaves<k.Array>(grads as k.PyTree)
    .map((g) => g.isFinite().astype("f32").min().equal(1))
    .reduce((a, b) => a.and(b));
  const good = k.where(finite, s.goodSteps.add(1), 0);
  const grow = good.greaterEqual(growth);
  const scale = k.where(finite, k.where(grow, s.scale.mul(2), s.scale), s.scale.mul(0.5));
  return { grads, finite, next: { scale, goodSteps: k.where(grow, 0, good) } };
}

/** Keeps `old` where the step overflowed (a skipped step changes nothing). */
export function keepIfSkipped<T>(finite: k.Array, updated: T, old: T): T {
  return k.treeMap((u: k.Array, o: k.Array) => k.where(finite, u, o), updated, old);
}
