// How close the XLA run's per-step losses must be to the CPU reference's, and the comparison itself.
//
// The tolerance. Both runs compute the same program in f32 (f32 products ask for HIGHEST precision, so a
// GPU uses no TF32); they differ only in rounding: the executors order their sums differently (ONNX
// Runtime's MLAS kernels; XLA:CPU's fused reductions and Eigen/YNNPACK dots; on a GPU, cuBLAS's split
// and tiled accumulation, tree reductions, and CUDA's own exp/log/erf, each within a few ulp). Rounding
// differences of one step feed the next through AdamW, so they grow over the 20 steps.
// Observed on XLA:CPU against ONNX Runtime: 20 steps of the tiny RoBERTa of test/train/xla-executor
// differ by at most 5e-7 in the loss (about 1e-7 relative); the bundle's two tasks (mlm-mini, llama-small
// at 8 × 64) by at most 2.1e-7 relative over their 20 steps (`steps.js compare --platform cpu`).
// A GPU reorders more: a dot over K terms accumulated in another order differs by about √K·ε
// (ε = 6e-8; K up to 1024 here, so ~2e-6 per product), and the backward pass and optimizer carry it on.
// Held: 2e-5 relative per step, a hundred times what the CPU executors show and ten times the
// one-product bound. A real error in a lowering, a layout or a struct on the GPU moves the loss by 1e-3
// or more within a step or two (a wrong gradient changes the next loss at the learning rate's scale,
// 1e-3 here), so the margin does not hide one.
export const LOSS_RTOL = 2e-5;

export interface StepsComparison {
  readonly bench: "steps";
  readonly task: string;
  readonly preset: string;
  readonly steps: number;
  /** The largest |xla − reference| / |reference| over the steps, and the step (1-based) where it is. */
  readonly maxRelDiff: number;
  readonly worstStep: number;
  readonly tolerance: number;
  readonly pass: boolean;
  readonly platform: string;
  readonly device: string;
  readonly reference: string;
  readonly firstLoss: number;
  readonly lastLoss: number;
  readonly compileSeconds: number;
  /** The whole run: data, compile, steps. */
  readonly seconds: number;
}

/** Per-step relative differences of `losses` from `reference` (same length, checked by the caller). */
export function relativeDifferences(losses: readonly number[], reference: readonly number[]): number[] {
  return losses.map((l, i) => Math.abs(l - reference[i]!) / Math.abs(reference[i]!));
}

/** The worst step's relative difference and its 1-based index; a non-finite loss is the worst of all. */
export function worstStep(losses: readonly number[], reference: readonly number[]): { maxRelDiff: number; worstStep: number } {
  const diffs = relativeDifferences(losses, reference).map((d) => (Number.isNaN(d) ? Infinity : d));
  let at = 0;
  diffs.forEach((d, i) => {
    if (d > diffs[at]!) at = i;
  });
  return { maxRelDiff: diffs[at]!, worstStep: at + 1 };
}
