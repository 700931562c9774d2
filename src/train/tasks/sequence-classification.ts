// Sequence classification: a pretrained encoder or decoder with a classification head (transformers'
// *ForSequenceClassification), fine-tuned with cross-entropy over labelled examples (optionally weighted
// per class). Evaluation reports accuracy and macro F1, and the confusion matrix at the end of the run.
import { OptionError } from "../../core/option-error.js";
import type { LanguageModel } from "../../models/language-model.js";
import type { SequenceClassifier } from "../../models/classification/model.js";
import { accuracyOf, confusionLines, confusionMatrix, examplesOf, macroF1Of } from "../classification-metrics.js";
import { sequenceClassificationObjective } from "../objectives/sequence-classification.js";
import type { TaskSpec } from "./task.js";

/** A sequence classifier is a model with class logits (createSequenceClassifier, *ForSequenceClassification). */
export function isSequenceClassifier(model: LanguageModel): model is SequenceClassifier {
  return typeof (model as Partial<SequenceClassifier>).logits === "function";
}

/** The problem a classifier's config sets it up for (transformers' rule where problem_type is unset). */
function problemOf(model: SequenceClassifier): string {
  const c = model.config;
  return c.problem_type ?? (c.num_labels === 1 ? "regression" : "single_label_classification");
}

/** The class names of a classifier's config, in id order. */
function labelsOf(c: SequenceClassifier["config"]): string[] {
  return Array.from({ length: c.num_labels }, (_, i) => c.id2label[String(i)] ?? String(i));
}

export const sequenceClassificationTask: TaskSpec = {
  name: "sequence-classification",
  kind: "a sequence classifier",
  usesMasking: false,
  labelledData: true,
  accepts: isSequenceClassifier,
  objective(model, s) {
    const m = model as SequenceClassifier;
    if (s.masking)
      throw new Error(
        `a sequence classifier (${m.architecture}) trains on labelled examples and has no masking: leave out the masking settings`,
      );
    if (s.labelCapacity !== undefined)
      throw new Error(`labelCapacity sizes a masked LM's head; a sequence classifier (${m.architecture}) has none`);
    const problem = problemOf(m);
    if (problem !== "single_label_classification")
      throw new OptionError({
        where: "Trainer.fit",
        option: "model",
        value: `${m.architecture} (num_labels ${m.config.num_labels}, problem_type ${problem})`,
        why: `is set up for ${problem}, and Kiln fine-tunes single-label classifiers only (one class id per example)`,
        fix: 'Give the classifier 2 or more classes (numLabels) with problemType "single_label_classification"',
      });
    const w = s.classWeights;
    if (w !== undefined && (w.length !== m.config.num_labels || !w.every((x) => Number.isFinite(x) && x >= 0) || !w.some((x) => x > 0)))
      throw new OptionError({
        where: "Trainer.fit",
        option: "classWeights",
        value: w,
        why: `must be ${m.config.num_labels} finite weights ≥ 0 (one per class of the model), not all 0`,
        fix: `Give one weight per class, in class id order (${Object.values(m.config.id2label).join(", ")})`,
      });
    return sequenceClassificationObjective({ model: m, ...(w ? { classWeights: w } : {}) });
  },
  evalMetrics({ lossSum, count, counts }) {
    const m = confusionMatrix(counts ?? [], Math.round(Math.sqrt(counts?.length ?? 0)));
    return {
      eval_loss: count ? lossSum / count : NaN,
      eval_accuracy: accuracyOf(m),
      eval_macro_f1: macroF1Of(m),
      eval_examples: examplesOf(m),
    };
  },
  evalLine: (m) =>
    `accuracy ${(100 * m.eval_accuracy!).toFixed(2)}%, macro F1 ${m.eval_macro_f1!.toFixed(4)} over ${m.eval_examples} examples`,
  evalReport({ counts }, model) {
    const c = (model as SequenceClassifier).config;
    return [
      "confusion matrix (rows: true label, columns: predicted):",
      ...confusionLines(confusionMatrix(counts ?? [], c.num_labels), labelsOf(c)),
    ];
  },
  evalDetails: ({ counts }, model) => {
    const c = (model as SequenceClassifier).config;
    return { labels: labelsOf(c), confusion_matrix: confusionMatrix(counts ?? [], c.num_labels) };
  },
};
