// What a training objective gives the generic step (train-step.ts): per micro-batch, first its targets
// and how many of them the loss counts (known before the forward pass, so that every micro-batch and
// replica can divide by the count of the whole global batch), then, from the parameters, the summed
// loss, the correct predictions and the targets left out. Masked LM (mlm.ts) and next-token causal LM
// (causal-lm.ts) are the two Kiln ships; the step machinery around them is shared.
import type * as k from "../../core/index.js";
import type { LanguageModel, Params } from "../../models/language-model.js";
import type { LayerLoop } from "../../models/layer-stack.js";
import type { LoadTask } from "../../models/pretrained.js";

/** The objectives Kiln trains with (the `--task` of `kiln train`): the tasks model families are for, and classification. */
export type TrainingTask = LoadTask;

/**
 * One micro-batch on one replica. exampleOffset: epoch-wide index of its first example. Labelled data
 * (classification) adds `labels` [rows] (-100 on padding rows) and `tokenTypeIds` [rows, length].
 */
export interface ObjectiveBatch {
  inputIds: k.Array;
  attentionMask: k.Array;
  exampleOffset: k.Array;
  epoch: k.Array;
  labels?: k.Array;
  tokenTypeIds?: k.Array;
}

/** A micro-batch's targets: whatever the objective needs later, and how many targets the loss counts. */
export interface ObjectiveTargets {
  count: k.Array;
}

/** How the forward pass runs: dropout (training only), activation dtype, the layer stack's loop. */
export interface ForwardSettings {
  dropoutKey?: k.Array | null;
  exampleOffset?: k.Array;
  dtype?: k.DType;
  layerLoop?: LayerLoop;
}

/** An objective's sums over a micro-batch: loss, correct predictions, counted and dropped targets. */
export interface ObjectiveOutputs {
  /** Σ of the per-target losses (not yet divided by any count). */
  lossSum: k.Array;
  /** Targets whose top-1 prediction is right. */
  correct: k.Array;
  /** Targets the loss counted (the targets' count less `dropped`). */
  count: k.Array;
  /** Targets left out of the loss (the MLM head's capacity; 0 for a causal LM). */
  dropped: k.Array;
  /**
   * Evaluation counts beyond the sums, where the task has them (a classifier's confusion matrix, [true
   * class, predicted class]): summed over batches, replicas and processes like the sums.
   */
  counts?: k.Array;
}

/** What a training step minimizes: the targets of a batch and the model's loss on them. */
export interface TrainingObjective<T extends ObjectiveTargets = ObjectiveTargets> {
  readonly task: TrainingTask;
  readonly model: LanguageModel;
  /** The targets of a micro-batch, before any forward pass. */
  targets(batch: ObjectiveBatch): T;
  /** Forward pass and loss of a micro-batch whose targets `targets` made. */
  outputs(params: Params, targets: T, forward: ForwardSettings): ObjectiveOutputs;
  /**
   * What a uniform guess chooses among, whose loss (ln count) the divergence watch measures against:
   * default the model's vocabulary of tokens (a language model); a classifier's classes.
   */
  readonly outcomes?: { count: number; noun: string };
}
