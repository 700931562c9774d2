// The compiled training and evaluation steps of any objective (objectives/): targets, forward, loss,
// backward, gradient all-reduce, loss scaling, clipping and the optimizer update in one program. The
// host only feeds token batches and reads back a few scalars. Any optimizer (optim/optimizer.ts) runs
// in it through applyOptimizer.
//
// Loss normalization is global: each micro-batch (and replica) contributes Σ loss / N where N counts the
// targets of the whole global batch (known before the forward pass, from the objective's targets), so
// one device with batch 32 and 8 replicas × 4 (or 4 micro-batches × 8) compute the same loss and the
// same gradients.
import * as k from "../core/index.js";
import type { LayerLoop } from "../models/layer-stack.js";
import type { Params } from "../models/language-model.js";
import { clipByGlobalNorm } from "../optim/clip.js";
import { applyOptimizer, type Optimizer, type OptimizerState } from "../optim/optimizer.js";
import { unscaleAndCheck, type LossScaleOptions, type LossScaleState } from "../optim/precision.js";
import type { ForwardSettings, ObjectiveBatch, ObjectiveOutputs, ObjectiveTargets, TrainingObjective } from "./objectives/objective.js";

/** Options of makeTrainStep: the objective, the optimizer, precision, micro-batches, clipping and loss scaling. */
export interface TrainStepOptions {
  /** What the step minimizes, and on which model (maskedLmObjective, causalLmObjective). */
  objective: TrainingObjective<any>;
  /** The update rule (AdamW, Adafactor, Lion, or any Optimizer). */
  optimizer: Optimizer<any>;
  /** Activation dtype: "f32", or "bf16"/"f16" for mixed precision (master weights stay f32). */
  computeDtype?: k.DType;
  /** Gradient accumulation: the step's batch is split into this many micro-batches. */
  microBatches?: number;
  /** Clip gradients to this global norm (after accumulation and all-reduce). */
  clipNorm?: number;
  /** Seed of the dropout stream (an objective's own randomness, e.g. masking, has its own seed). */
  dropoutSeed: number;
  /** Dynamic loss scaling settings (used when the state carries a scaler, i.e. precision "16-mixed"). */
  lossScaling?: LossScaleOptions;
  /**
   * What a step whose loss or gradient norm is not finite does to the state: "apply" (the update goes
   * through, and the host stops the run on the flag) or "skip" (parameters and optimizer state stay as
   * they were, as a loss-scaled overflow does). Either way `nonFinite` reports it.
   */
  nonFiniteUpdate?: "apply" | "skip";
  /** The model's layer stack: unrolled (default) or one loop over the layers. */
  layerLoop?: LayerLoop;
}

/** A step's metrics, as arrays: loss, correct predictions, counted targets, learning rate, gradient norm, skips. */
export interface StepMetrics {
  /** Mean loss over the targets of the global batch. */
  loss: k.Array;
  correct: k.Array;
  count: k.Array;
  lr: k.Array;
  gradNorm: k.Array;
  /** Targets left out of the loss (MLM: labelled positions beyond the head's capacity; normally 0). */
  dropped: k.Array;
  /** 1 when the step overflowed and was skipped (loss scaling), else 0. */
  skipped: k.Array;
  /**
   * 1 when the loss or the gradient norm is NaN or infinite (a diverged step), else 0. Read by the host
   * together with the loss, so watching for divergence costs no extra synchronization. An f16 overflow
   * that loss scaling skips is not counted here (that is `skipped`).
   */
  nonFinite: k.Array;
}

/** What the training step carries from one step to the next: parameters, optimizer state, loss scale. */
export interface TrainState<S extends OptimizerState = OptimizerState> {
  params: Params;
  /** The optimizer's state (a tree of arrays whose shape the optimizer decides). */
  opt: S;
  /** Present under dynamic loss scaling. */
  scaler?: LossScaleState;
}

/** Inputs of one step on one replica. exampleOffset: epoch-wide index of its first example. */
export type StepInputs = ObjectiveBatch;

function microSlices(x: k.Array, n: number): k.Array[] {
  const b = x.shape[0]!;
  if (b % n !== 0)
    throw new Error(
      `a batch of ${b} rows does not split into ${n} micro-batches; make the per-replica batch a multiple of the accumulation steps`,
    );
  return k.split(
    x,
    Array.from({ length: n }, () => b / n),
    0,
  );
}

/** A replica's batch as its micro-batches, each with the objective's targets (masking, the causal shift). */
export function microParts(o: TrainStepOptions, batch: StepInputs): { part: StepInputs; targets: ObjectiveTargets }[] {
  const micro = o.microBatches ?? 1;
  const idsParts = microSlices(batch.inputIds, micro),
    maskParts = microSlices(batch.attentionMask, micro);
  const labelParts = batch.labels && microSlices(batch.labels, micro),
    typeParts = batch.tokenTypeIds && microSlices(batch.tokenTypeIds, micro);
  const rowsPer = idsParts[0]!.shape[0]!;
  return idsParts.map((ids, i) => {
    const part: StepInputs = {
      inputIds: ids,
      attentionMask: maskParts[i]!,
      epoch: batch.epoch,
      exampleOffset: batch.exampleOffset.add(i * rowsPer),
      ...(labelParts ? { labels: labelParts[i]! } : {}),
      ...(typeParts ? { tokenTypeIds: typeParts[i]! } : {}),
    };
    return { part, targets: o.objective.targets(part) };
  });
}

/**
 * Forward and backward over the micro-batches, summed: the gradient of Σ loss (times the loss scale
 * under loss scaling), the loss sum, the correct predictions and the dropped targets of this replica.
 * With `normalizer` (the one-program step's global target count, known before the forward pass) each
 * part's loss is divided by it before its gradient; without, the sums stay undivided (the step split
 * across processes divides once the count of every process is known).
 */
export function partGradients(
  o: TrainStepOptions,
  params: Params,
  scale: k.Array | undefined,
  parts: readonly { part: StepInputs; targets: ObjectiveTargets }[],
  step: k.Array,
  normalizer?: k.Array,
): { grads: Params; lossSum: k.Array; correct: k.Array; dropped: k.Array } {
  const dtype = o.computeDtype ?? "f32";
  const dropoutKey = k.foldIn(k.randomKey(o.dropoutSeed), step.astype("u32"));
  let grads: any = null;
  let lossSum: k.Array = k.scalar(0),
    correct: k.Array = k.scalar(0),
    dropped: k.Array = k.scalar(0);
  for (const { part: mb, targets } of parts) {
    const forward: ForwardSettings = {
      dropoutKey,
      exampleOffset: mb.exampleOffset,
      dtype,
      ...(o.layerLoop ? { layerLoop: o.layerLoop } : {}),
    };
    const partLoss = (p: Params) => {
      const out = o.objective.outputs(p, targets, forward);
      const part = normalizer ? out.lossSum.div(normalizer) : out.lossSum;
      return [scale ? part.mul(scale) : part, { part, correct: out.correct, dropped: out.dropped }] as const;
    };
    const [[, out], g] = k.valueAndGrad(partLoss, { hasAux: true })(params) as [
      [k.Array, { part: k.Array; correct: k.Array; dropped: k.Array }],
      Params,
    ];
    lossSum = lossSum.add(out.part);
    correct = correct.add(out.correct);
    dropped = dropped.add(out.dropped);
    grads = grads ? k.treeMap((a: k.Array, b: k.Array) => a.add(b), grads, g) : g;
  }
  return { grads, lossSum, correct, dropped };
}

/**
 * The per-replica training step. Under data parallelism the same program runs on every replica and
 * all_reduce sums counts, losses and gradients across them (identity on one replica).
 */
export function makeTrainStep(o: TrainStepOptions) {
  return function trainStep(state: TrainState, batch: StepInputs, step: k.Array): { state: TrainState; metrics: StepMetrics } {
    const parts = microParts(o, batch);
    // The global number of targets: known before the forward pass, so it can normalize every part.
    const localCount = parts.map((p) => p.targets.count).reduce((a, b) => a.add(b));
    const total = k.maximum(k.bind("all_reduce", [localCount], {}), 1);
    const summed = partGradients(o, state.params, state.scaler?.scale, parts, step, total);
    const { lossSum, correct, dropped } = summed;
    const grads = k.treeMap((g: k.Array) => k.bind("all_reduce", [g], {}), summed.grads);
    const loss = k.bind("all_reduce", [lossSum], {});
    const { next, gradNorm, lr, skipped, nonFinite } = updateFromGradients(o, state, grads, loss);
    return {
      state: next,
      metrics: {
        loss,
        correct: k.bind("all_reduce", [correct], {}),
        count: total,
        lr,
        gradNorm,
        dropped: k.bind("all_reduce", [dropped], {}),
        skipped,
        nonFinite,
      },
    };
  };
}

/**
 * What a step does once its gradients are summed over every replica: the loss scaler's overflow check,
 * clipping, the gradient norm, the divergence flag and the optimizer's update, which takes effect unless
 * the loss scaler skips the step or it is non-finite under "skip". Shared by the one-program step and the
 * update program of the step split across processes (split-step.ts).
 */
export function updateFromGradients(o: TrainStepOptions, state: TrainState, summedGrads: unknown, loss: k.Array) {
  let grads: any = summedGrads;
  let finite: k.Array | undefined;
  let scaler = state.scaler;
  if (state.scaler) ({ grads, finite, next: scaler } = unscaleAndCheck(grads, state.scaler, o.lossScaling));
  let gradNorm: k.Array;
  if (o.clipNorm) ({ grads, norm: gradNorm } = clipByGlobalNorm(grads, o.clipNorm));
  else
    gradNorm = k
      .leaves<k.Array>(grads)
      .map((g) => g.astype("f32").square().sum())
      .reduce((a, b) => a.add(b))
      .sqrt();
  // gradNorm is the norm before clipping, so a NaN or Inf anywhere in the gradients shows in it.
  const diverged = loss.isFinite().and(gradNorm.isFinite()).not();
  // Under loss scaling an overflowing step is already skipped (and the scale halved): not a divergence.
  const nonFinite = finite ? finite.and(diverged) : diverged;
  const skip = o.nonFiniteUpdate === "skip";
  const keep = finite && skip ? finite.and(nonFinite.not()) : skip ? nonFinite.not() : finite;
  const upd = applyOptimizer(o.optimizer, grads, state.params, state.opt, keep);
  const next: TrainState = { params: upd.params, opt: upd.opt, ...(finite ? { scaler: scaler! } : {}) };
  return {
    next,
    gradNorm,
    lr: upd.lr,
    skipped: finite ? finite.not().astype("f32") : k.scalar(0),
    nonFinite: nonFinite.astype("f32"),
  };
}

/**
 * The per-replica evaluation step: the objective's targets (for the MLM, masking with its own seed), loss
 * and accuracy, no update. Returns `scalars` = [summed loss, correct predictions, counted targets] of the
 * global batch, followed by the objective's evaluation counts flattened (a classifier's confusion matrix).
 */
export function makeEvalStep(o: Pick<TrainStepOptions, "objective" | "computeDtype" | "layerLoop">) {
  const dtype = o.computeDtype ?? "f32";
  return function evalStep(params: Params, batch: StepInputs): { scalars: k.Array } {
    const out: ObjectiveOutputs = o.objective.outputs(params, o.objective.targets(batch), {
      dtype,
      ...(o.layerLoop ? { layerLoop: o.layerLoop } : {}),
    });
    const all = (x: k.Array) => k.bind("all_reduce", [x], {});
    // [Σ loss, correct, count, …counts] over the global batch in one array: one copy back per evaluated batch.
    const sums = k.stack([out.lossSum, out.correct, out.count].map((x) => all(x).astype("f32")));
    return { scalars: out.counts ? k.concat([sums, all(out.counts.astype("f32")).reshape([-1])]) : sums };
  };
}

/**
 * Inputs of K consecutive steps on one replica: [K, rows, length] ids and mask, [K] offsets and epochs;
 * labelled data adds [K, rows] labels and [K, rows, length] token types.
 */
export interface StackedStepInputs {
  inputIds: k.Array;
  attentionMask: k.Array;
  exampleOffset: k.Array;
  epoch: k.Array;
  labels?: k.Array;
  tokenTypeIds?: k.Array;
}

/** Step `i` of K stacked inputs, as one step's inputs. */
export function stepOf(inputs: StackedStepInputs, i: number): StepInputs {
  const pick = (x: k.Array) => x.slice([i], [i + 1]).squeeze(0);
  return {
    inputIds: pick(inputs.inputIds),
    attentionMask: pick(inputs.attentionMask),
    exampleOffset: pick(inputs.exampleOffset),
    epoch: pick(inputs.epoch),
    ...(inputs.labels ? { labels: pick(inputs.labels) } : {}),
    ...(inputs.tokenTypeIds ? { tokenTypeIds: pick(inputs.tokenTypeIds) } : {}),
  };
}

/**
 * Steps-per-execution: K training steps in one compiled call (one host round trip per K steps). The
 * steps run in order on their own batches; each step's metrics come back as row i of `scalars`
 * ([K, STEP_SCALARS], read with stepScalars).
 * `loop`: "unrolled" (default) traces the step K times; "scan" traces it once, as a loop over the K
 * stacked batches carrying the train state (the same numbers; a program 1/K the size).
 */
export function makeMultiStep(single: ReturnType<typeof makeTrainStep>, loop: "unrolled" | "scan" = "unrolled") {
  const steps = stepsOf(single, loop);
  return function trainSteps(state: TrainState, inputs: StackedStepInputs, firstStep: k.Array): { state: TrainState; scalars: k.Array } {
    const out = steps(state, inputs, firstStep);
    // Only the packed metrics leave the program: the host reads them with stepScalars.
    return { state: out.state, scalars: packScalars(out.metrics) };
  };
}

/**
 * The step metrics the host reads after every call, in this order as the columns of one [K, n] f32
 * array: a single device-to-host copy per call, however many metrics there are.
 */
export const STEP_SCALARS = ["loss", "correct", "count", "lr", "gradNorm", "skipped", "nonFinite", "dropped"] as const;

function packScalars(m: StepMetrics): k.Array {
  return k.stack(
    STEP_SCALARS.map((name) => m[name].astype("f32")),
    1,
  );
}

/** Reads one step's metrics (row `i`) out of the host copy of `scalars`. */
export function stepScalars(host: Float32Array, i: number): Record<(typeof STEP_SCALARS)[number], number> {
  const row = i * STEP_SCALARS.length;
  return Object.fromEntries(STEP_SCALARS.map((name, j) => [name, host[row + j]!])) as Record<(typeof STEP_SCALARS)[number], number>;
}

function stepsOf(single: ReturnType<typeof makeTrainStep>, loop: "unrolled" | "scan") {
  return function trainStepsUnpacked(
    state: TrainState,
    inputs: StackedStepInputs,
    firstStep: k.Array,
  ): { state: TrainState; metrics: StepMetrics } {
    if (loop === "scan") {
      const [last, metrics] = k.scan(
        (c: { state: TrainState; step: k.Array }, batch: StepInputs) => {
          const out = single(c.state, batch, c.step);
          return [{ state: out.state, step: c.step.add(1) }, out.metrics] as const;
        },
        { state, step: firstStep },
        inputs,
        { name: "train_step_loop" },
      );
      return { state: last.state, metrics };
    }
    const steps = inputs.inputIds.shape[0]!;
    const all: StepMetrics[] = [];
    for (let i = 0; i < steps; i++) {
      const out = single(state, stepOf(inputs, i), firstStep.add(i));
      state = out.state;
      all.push(out.metrics);
    }
    const stacked = Object.fromEntries(
      Object.keys(all[0]!).map((name) => [name, k.stack(all.map((m) => m[name as keyof StepMetrics]))]),
    ) as unknown as StepMetrics;
    return { state, metrics: stacked };
  };
}
