// The training step split in two compiled programs for data parallelism across processes (Horovod's
// design): the gradient program (targets, forward, backward, and the in-process all_reduce over this
// process's replicas) and the update program (normalization by the global target count, loss-scale
// check, clipping, the optimizer), with the cross-process sum (MPI) between them on the host.
//
// The gradient program hands back one flat f32 vector: every gradient (summed over targets, not yet
// divided: the global count is known only after the cross-process sum), then the summed loss, the
// target count, the correct predictions and the dropped targets. One vector is one device-to-host copy
// and the buffer the all-reduce sums in place, bucket by bucket; the update program splits it again.
import * as k from "../core/index.js";
import type { Params } from "../models/language-model.js";
import {
  microParts,
  stepOf,
  partGradients,
  STEP_SCALARS,
  type StepMetrics,
  type StackedStepInputs,
  type TrainState,
  type TrainStepOptions,
  updateFromGradients,
} from "./train-step.js";

/** The scalars after the gradients in the flat vector, in this order. */
export const GRADIENT_TAIL = ["lossSum", "count", "correct", "dropped"] as const;

/** Elements of the flat vector for these parameters: every parameter's size, then the tail. */
export function flatGradientLength(params: Params): number {
  return k.leaves<k.Array>(params).reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0) + GRADIENT_TAIL.length;
}

/**
 * The per-replica gradient program of one step. `inputs` are one step's stacked inputs ([1, rows, length],
 * as the trainer groups them); `state` supplies the parameters (and the loss scale under loss scaling).
 */
export function makeGradientStep(o: TrainStepOptions) {
  return function gradientStep(state: Pick<TrainState, "params" | "scaler">, inputs: StackedStepInputs, step: k.Array): { flat: k.Array } {
    const parts = microParts(o, stepOf(inputs, 0));
    const count = parts.map((p) => p.targets.count).reduce((a, b) => a.add(b));
    const { grads, lossSum, correct, dropped } = partGradients(o, state.params, state.scaler?.scale, parts, step);
    const sum = (x: k.Array) => k.bind("all_reduce", [x], {});
    const flat = k.concat([
      ...k.leaves<k.Array>(grads).map((g) =>
        sum(g)
          .astype("f32")
          .reshape([g.shape.reduce((a, b) => a * b, 1)]),
      ),
      ...[lossSum, count, correct, dropped].map((x) => sum(x.astype("f32")).reshape([1])),
    ]);
    return { flat };
  };
}

/**
 * The update program: the flat vector summed over every replica of every process in, the next state and
 * the step's packed metrics ([1, STEP_SCALARS], as makeMultiStep's) out.
 */
export function makeUpdateStep(o: TrainStepOptions) {
  return function updateStep(state: TrainState, flat: k.Array): { state: TrainState; scalars: k.Array } {
    const leaves = k.leaves<k.Array>(state.params);
    const sizes = leaves.map((p) => p.shape.reduce((a, b) => a * b, 1));
    const parts = k.split(flat, [...sizes, GRADIENT_TAIL.length]);
    const tail = parts.at(-1)!;
    const at = (i: number) => tail.slice([i], [i + 1]).reshape([]);
    const [lossSum, count, correct, dropped] = [0, 1, 2, 3].map(at) as [k.Array, k.Array, k.Array, k.Array];
    const total = k.maximum(count, 1);
    let i = 0;
    const grads = k.treeMap((p: k.Array) => parts[i++]!.reshape(p.shape).div(total).astype(p.dtype), state.params);
    const loss = lossSum.div(total);
    const { next, gradNorm, lr, skipped, nonFinite } = updateFromGradients(o, state, grads, loss);
    const metrics: StepMetrics = {
      loss,
      correct,
      count: total,
      lr,
      gradNorm,
      dropped,
      skipped,
      nonFinite,
    };
    return { state: next, scalars: k.stack(STEP_SCALARS.map((name) => metrics[name].astype("f32"))).reshape([1, STEP_SCALARS.length]) };
  };
}
