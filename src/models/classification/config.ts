// A sequence classifier's config.json: its family's config (bert, roberta, llama, gpt2) plus the fields
// transformers' *ForSequenceClassification reads: id2label/label2id (num_labels is their size) and
// problem_type. Labels come from the file, or from the caller when a fresh head is put on a base model.
import { OptionError } from "../../core/option-error.js";
import { validateModelConfig, type ModelConfig } from "../registry.js";

/** transformers' class for each family's classifier, as config.json's architectures names it. */
export const CLASSIFIER_ARCHITECTURES: Readonly<Record<string, string>> = {
  bert: "BertForSequenceClassification",
  roberta: "RobertaForSequenceClassification",
  llama: "LlamaForSequenceClassification",
  gpt2: "GPT2ForSequenceClassification",
};

export const PROBLEM_TYPES = ["regression", "single_label_classification", "multi_label_classification"] as const;
export type ProblemType = (typeof PROBLEM_TYPES)[number];

export interface ClassificationFields {
  num_labels: number;
  id2label: Record<string, string>;
  label2id: Record<string, number>;
  /** How scores are read: softmax (single label), sigmoid (multi label) or raw (regression); null: by num_labels. */
  problem_type: ProblemType | null;
}

/** A sequence classifier's config: its family's config plus num_labels, id2label, label2id and problem_type. */
export type ClassifierConfig = ModelConfig & ClassificationFields;

/** The labels of a classifier that starts from a base model (transformers' num_labels, id2label, problem_type). */
export interface ClassifierLabels {
  /** Names of the classes, in id order (default LABEL_0 … LABEL_{numLabels-1}). */
  labels?: readonly string[];
  /** How many classes (default: labels' count, else 2 as in transformers). */
  numLabels?: number;
  problemType?: ProblemType;
}

/** Whether a config.json describes a sequence classifier (its architectures name one). */
export function isClassifierJson(raw: Record<string, unknown>): boolean {
  const a = raw.architectures;
  return Array.isArray(a) && typeof a[0] === "string" && a[0].endsWith("ForSequenceClassification");
}

function fromFile(raw: Record<string, unknown>, where: string): string[] | undefined {
  const id2label = raw.id2label;
  if (id2label === undefined || id2label === null) return undefined;
  if (typeof id2label !== "object" || Array.isArray(id2label))
    throw new Error(`${where}: "id2label" must be an object of id → label name, got ${JSON.stringify(id2label)}`);
  const entries = Object.entries(id2label as Record<string, unknown>);
  const labels: string[] = [];
  for (const [id, name] of entries) {
    const i = Number(id);
    if (!Number.isInteger(i) || i < 0 || i >= entries.length || typeof name !== "string")
      throw new Error(
        `${where}: "id2label" must map the ids 0 … ${entries.length - 1} to names, got ${JSON.stringify(id)}: ${JSON.stringify(name)}`,
      );
    labels[i] = name;
  }
  return labels;
}

/**
 * A classifier's config from a config.json object. `fresh` are the caller's labels for a head
 * initialized here; a file that already describes a classifier keeps its own, unless the caller's
 * are as many (then they rename them).
 */
export function classifierConfig(raw: Record<string, unknown>, where: string, fresh: ClassifierLabels = {}): ClassifierConfig {
  const base = validateModelConfig(raw, where);
  const arch = CLASSIFIER_ARCHITECTURES[base.model_type];
  if (!arch) throw new Error(`${where}: model_type "${base.model_type}" has no sequence classifier in Kiln`);
  const own = isClassifierJson(raw) ? fromFile(raw, where) : undefined;
  let labels = fresh.labels ? [...fresh.labels] : undefined;
  if (fresh.numLabels !== undefined && (!Number.isInteger(fresh.numLabels) || fresh.numLabels < 1))
    throw new OptionError({ option: "numLabels", value: fresh.numLabels, why: "must be a positive integer", where: "loadModel" });
  if (labels && fresh.numLabels !== undefined && labels.length !== fresh.numLabels)
    throw new OptionError({
      option: "numLabels",
      value: fresh.numLabels,
      why: `disagrees with labels, which names ${labels.length} classes`,
      fix: "Give one of the two",
      where: "loadModel",
    });
  if (labels && (labels.length === 0 || labels.some((l) => typeof l !== "string" || l === "") || new Set(labels).size !== labels.length))
    throw new OptionError({ option: "labels", value: labels, why: "must be distinct non-empty names", where: "loadModel" });
  const count = labels?.length ?? fresh.numLabels;
  if (own && count !== undefined && count !== own.length)
    throw new OptionError({
      option: labels ? "labels" : "numLabels",
      value: labels ?? count,
      why: `asks for ${count} classes, but ${where} is a classifier of ${own.length} (${own.join(", ")})`,
      fix: "Leave it out to use the model's classes, or start from its base model",
      where: "loadModel",
    });
  labels ??= own ?? Array.from({ length: count ?? 2 }, (_, i) => `LABEL_${i}`);
  const problem = fresh.problemType ?? raw.problem_type ?? null;
  if (problem !== null && !PROBLEM_TYPES.includes(problem as ProblemType))
    throw new Error(`${where}: problem_type ${JSON.stringify(problem)} is not one of ${PROBLEM_TYPES.join(", ")}`);
  const dropout = raw.classifier_dropout;
  if (dropout !== undefined && dropout !== null && !(typeof dropout === "number" && dropout >= 0 && dropout < 1))
    throw new Error(`${where}: "classifier_dropout" must be null or in [0, 1), got ${JSON.stringify(dropout)}`);
  return {
    ...base,
    architectures: [arch],
    num_labels: labels.length,
    id2label: Object.fromEntries(labels.map((l, i) => [String(i), l])),
    label2id: Object.fromEntries(labels.map((l, i) => [l, i])),
    problem_type: problem as ProblemType | null,
  };
}
