// Softmax cross-entropy over the last axis, fused: the forward pass is one LogSoftmax (MLAS's fused
// kernel) and a GatherElements of the label's log-probability, and the gradient is the probabilities, a
// Mul by the cotangent and a ScatterElements that subtracts it at the labels. (ReduceLogSumExp writes no
// [rows, V] tensor but measured 2.2× slower than LogSoftmax on [4064, 8192] logits with 2 threads.)
// The probabilities are Exp of the forward pass's log-probabilities where the same graph computed them
// (a training step), one pass where a Softmax makes three: on [4064, 8192] logits 16 ms against 24,
// within about |log p|·2⁻²⁴ of the Softmax relatively. Where the graph runs generated kernels, one kernel
// computes the probabilities and each row's log-sum-exp instead (row-kernels.ts): the loss is log-sum-exp
// minus the label's logit. 16-bit floats compute in f32 and round once at the end.
import type { GraphBuilder, Val } from "./graph-builder.js";
import { computeDtype } from "./graph-builder.js";
import { clampIndices } from "./lower-indexing.js";
import type { Lowering } from "./lowering-signature.js";
import { softmaxRows } from "./row-kernels.js";

/** The logits in their compute dtype, materialized, with the class axis and its size. */
function logitsIn(g: GraphBuilder, x: Val): { logits: Val; axis: number; classes: number } {
  const logits = g.materialize(g.cast(x, computeDtype(x.dtype)));
  const axis = logits.shape.length - 1;
  return { logits, axis, classes: logits.shape[axis]! };
}

/** The clamped labels as a [..., 1] index column (GatherElements and ScatterElements take one index per element). */
function labelColumn(g: GraphBuilder, labels: Val, classes: number): Val {
  const idx = g.materialize(clampIndices(g, labels, classes));
  return g.reshape(idx, [...idx.shape, 1]);
}

/** The log-probabilities each graph has computed, by the name of their logits. */
const logProbabilities = new WeakMap<GraphBuilder, Map<string, string>>();

const softmaxCrossEntropy: Lowering<"softmax_cross_entropy"> = (g, [x, labels], _p, out) => {
  const { logits, axis, classes } = logitsIn(g, x!);
  const column = [...out.shape, 1];
  const rows = softmaxRows(g, logits);
  if (rows) {
    // log Σ exp(x) − x[label], from the rows' kernel (row-kernels.ts), which the gradient reads too.
    const label: Val = {
      name: g.node("GatherElements", [logits.name, labelColumn(g, labels!, classes).name], { axis: { kind: "int", value: axis } }),
      dtype: logits.dtype,
      shape: column,
      full: column,
    };
    const lse = g.reshape(rows.logSumExp, column);
    return g.cast(g.reshape(g.elementwise("Sub", [lse, label], logits.dtype), out.shape), out.dtype);
  }
  const logp = g.node("LogSoftmax", [logits.name], { axis: { kind: "int", value: axis } });
  if (!logProbabilities.has(g)) logProbabilities.set(g, new Map());
  logProbabilities.get(g)!.set(logits.name, logp);
  const picked: Val = {
    name: g.node("GatherElements", [logp, labelColumn(g, labels!, classes).name], { axis: { kind: "int", value: axis } }),
    dtype: logits.dtype,
    shape: column,
    full: column,
  };
  return g.cast(g.reshape(g.elementwise("Neg", [picked], logits.dtype), out.shape), out.dtype);
};

const softmaxCrossEntropyGrad: Lowering<"softmax_cross_entropy_grad"> = (g, [x, labels, ct], _p, out) => {
  const { logits, axis, classes } = logitsIn(g, x!);
  const c = logits.dtype;
  const logp = logProbabilities.get(g)?.get(logits.name);
  const rows = logp ? undefined : softmaxRows(g, logits);
  const probs: Val = {
    ...logits,
    name: rows ? rows.probs.name : logp ? g.node("Exp", [logp]) : g.node("Softmax", [logits.name], { axis: { kind: "int", value: axis } }),
  };
  // The cotangent stays lazily broadcast for the Mul (a summed loss's is one value for every row), and
  // ones need none (scaleRowsAfterProducts leaves ones where the products it feeds scale the rows).
  const g1 = g.cast(ct!, c);
  const gColumn = g.reshapeActual(g1, [...g1.shape, 1], [...g1.full, 1]);
  const ones = g.initializerData.get(g1.name)?.data.every((v) => Number(v) === 1) ?? false;
  const scaled = ones ? probs : g.elementwise("Mul", [probs, gColumn], c);
  const minusG = g.materialize(g.elementwise("Neg", [gColumn], c));
  const name = g.node("ScatterElements", [scaled.name, labelColumn(g, labels!, classes).name, minusG.name], {
    axis: { kind: "int", value: axis },
    reduction: { kind: "string", value: "add" },
  });
  return g.cast({ ...scaled, name }, out.dtype);
};

export const CROSS_ENTROPY_LOWERINGS = {
  softmax_cross_entropy: softmaxCrossEntropy,
  softmax_cross_entropy_grad: softmaxCrossEntropyGrad,
};
