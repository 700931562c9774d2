// The sequence-classification objective: cross-entropy of the classifier's logits against each row's
// label (transformers' single_label_classification), optionally weighted per class as PyTorch's
// CrossEntropyLoss(weight=w) with mean reduction: Σ w_y·nll / Σ w_y. Rows labelled -100 (the padding
// rows of a length bucket's last, partial batch) count nowhere. The count the step divides by is Σ w_y
// (the number of labelled rows without weights), known before the forward pass, so that replicas and
// micro-batches normalize by the global batch's weight exactly as one device would. The training
// accuracy the step reports is weighted the same way (Σ w_y·hit / Σ w_y); evaluation's comes from the
// confusion matrix, unweighted.
import * as k from "../../core/index.js";
import type { Params } from "../../models/language-model.js";
import type { SequenceClassifier } from "../../models/classification/model.js";
import type { ForwardSettings, ObjectiveBatch, ObjectiveOutputs, TrainingObjective } from "./objective.js";

/** Options of sequenceClassificationObjective: the classifier and its class weights. */
export interface SequenceClassificationObjectiveOptions {
  model: SequenceClassifier;
  /** One weight per class (num_labels of them, ≥ 0, not all 0); default: every class weighs 1. */
  classWeights?: readonly number[];
}

export interface ClassificationTargets {
  inputIds: k.Array;
  attentionMask: k.Array;
  tokenTypeIds: k.Array | undefined;
  /** [rows] class ids, -100 where a row is padding. */
  labels: k.Array;
  /** [rows] each row's weight in the loss: its class's weight, 0 on padding rows. */
  weights: k.Array;
  count: k.Array;
}

/**
 * Each row's weight: w[label] (1 without class weights) where the row is labelled, 0 where it is padding.
 * The weights are program constants, selected per class (a handful of classes: no host array to place).
 */
export function rowWeights(labels: k.Array, classWeights: readonly number[] | undefined): k.Array {
  const labelled = labels.notEqual(-100);
  if (!classWeights) return labelled.astype("f32");
  return classWeights.reduce<k.Array>((acc, w, c) => k.where(labels.equal(c), w, acc), k.full(labels.shape, 0, "f32"));
}

/**
 * The classification sums of logits [rows, classes] against labels [rows] with row weights: Σ w·nll,
 * Σ w·(top-1 hit), Σ w, and the confusion matrix [true, predicted] of the labelled rows (argmax, the
 * first maximum on ties, as torch.argmax).
 */
export function classificationLoss(logits: k.Array, labels: k.Array, weights: k.Array): ObjectiveOutputs {
  const classes = logits.shape[1]!;
  const nll = k.crossEntropy(logits, labels, { reduction: "none" });
  const hit = k.labelIsTop(logits, labels).astype("f32");
  const labelled = labels.notEqual(-100);
  const truth = k.oneHot(k.where(labelled, labels, 0).astype("i32"), classes).mul(labelled.astype("f32").reshape([-1, 1]));
  const predicted = k.oneHot(k.argmax(k.stopGradient(logits), 1), classes);
  return {
    lossSum: nll.mul(weights).sum(),
    correct: hit.mul(weights).sum(),
    count: weights.sum(),
    dropped: k.scalar(0),
    counts: k.einsum("rt,rp->tp", truth, predicted),
  };
}

/** The objective a classifier fine-tunes with: (weighted) cross-entropy over each batch's labelled rows. */
export function sequenceClassificationObjective(o: SequenceClassificationObjectiveOptions): TrainingObjective<ClassificationTargets> {
  const { model } = o;
  // Only encoders with segment embeddings (BERT, RoBERTa) take token types; a decoder's forward refuses them.
  const takesTokenTypes = "type_vocab_size" in model.config;
  return {
    task: "sequence-classification",
    model,
    outcomes: { count: model.config.num_labels, noun: "classes" },
    targets(batch: ObjectiveBatch): ClassificationTargets {
      if (!batch.labels)
        throw new Error(
          `a sequence classifier (${model.architecture}) trains on labelled batches: ` +
            `open the data with openClassificationDataset (kiln data prepare --task classification)`,
        );
      const w = rowWeights(batch.labels, o.classWeights);
      return {
        inputIds: batch.inputIds,
        attentionMask: batch.attentionMask,
        tokenTypeIds: batch.tokenTypeIds,
        labels: batch.labels,
        weights: w,
        count: w.sum(),
      };
    },
    outputs(params: Params, t: ClassificationTargets, forward: ForwardSettings): ObjectiveOutputs {
      const logits = model.logits(params, t.inputIds, t.attentionMask, {
        ...forward,
        ...(takesTokenTypes && t.tokenTypeIds ? { tokenTypeIds: t.tokenTypeIds } : {}),
      } as never);
      return classificationLoss(logits, t.labels, t.weights);
    },
  };
}
