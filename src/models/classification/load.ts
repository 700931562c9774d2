// A sequence classifier from a model directory, as AutoModelForSequenceClassification.from_pretrained
// loads one: a classifier's directory (Kiln's or transformers') gives every parameter; a base model's
// (a masked LM, an encoder such as all-MiniLM-L6-v2, a causal LM) gives the base model, and the head is
// freshly initialized and named in a notice, as transformers warns ("newly initialized: [...]").
import * as k from "../../core/index.js";
import type { Params } from "../language-model.js";
import { matchCheckpointNames, nameList } from "../checkpoint-names.js";
import { parameterLayout, readCheckpointTensors, toParam } from "../checkpoint-read.js";
import type { ChecksumManifest } from "../file-digests.js";
import { classifierConfig, isClassifierJson, type ClassifierLabels } from "./config.js";
import { createSequenceClassifier, type SequenceClassifier } from "./model.js";

export interface ClassifierLoadOptions extends ClassifierLabels {
  device?: k.Device;
  /** "init" (default for a base model's directory): a missing head is initialized; "error": it is refused. */
  missingHead?: "error" | "init";
  /** Seed of a freshly initialized head (default 0). */
  seed?: number;
}

/** A sequence classifier loaded from a directory, with its parameters and what loading reported. */
export interface PretrainedClassifier {
  task: "sequence-classification";
  model: SequenceClassifier;
  params: Params;
  /** Whether the classification head came from the checkpoint or was initialized here. */
  head: "loaded" | "initialized";
  /** The freshly initialized parameters and the checkpoint's unused tensors, in words. */
  notices: string[];
}

export async function loadClassifier(
  dir: string,
  raw: Record<string, unknown>,
  path: string,
  opts: ClassifierLoadOptions,
  digests?: ChecksumManifest,
): Promise<PretrainedClassifier> {
  const config = classifierConfig(raw, path, opts);
  const model = createSequenceClassifier(config);
  const { tensors, where } = await readCheckpointTensors(dir, digests);
  const { names, avals, tree } = parameterLayout(model);
  const match = matchCheckpointNames(names, tensors, {}, model.baseModelPrefix);
  const heads = new Set(model.headNames);
  const missingBase = match.missing.filter((n) => !heads.has(n));
  if (missingBase.length > 0)
    throw new Error(`${where}: missing ${missingBase.length} parameter(s) of ${model.architecture}: ${nameList(missingBase)}`);
  const missingHead = match.missing.filter((n) => heads.has(n));
  const notices: string[] = [];
  let fresh: Map<string, k.Array> | undefined;
  if (missingHead.length > 0) {
    const fromClassifier = isClassifierJson(raw);
    if (fromClassifier || opts.missingHead === "error")
      throw new Error(
        `${where}: the classification head is missing (${nameList(missingHead)})` +
          (fromClassifier ? `, though ${path} names ${String((raw.architectures as string[])[0])}: the directory is incomplete` : ""),
      );
    const headLeaves = k.jit(
      (key: k.Array) => {
        const all = k.leaves<k.Array>(model.init(key));
        return missingHead.map((n) => all[names.indexOf(n)]!);
      },
      { name: "init_classifier_head", device: opts.device },
    )(k.randomKey(opts.seed ?? 0, opts.device));
    fresh = new Map(missingHead.map((n, i) => [n, headLeaves[i]!]));
    const from = Array.isArray(raw.architectures) ? ` (a ${String(raw.architectures[0])})` : "";
    notices.push(
      `${where}${from}: some weights of ${model.architecture} are newly initialized: ${nameList(missingHead, missingHead.length)}; ` +
        `train the model on a classification task before its predictions mean anything`,
    );
  }
  if (match.unused.length > 0)
    notices.push(`${where}: ${match.unused.length} tensor(s) unused by ${model.architecture}: ${nameList(match.unused)}`);
  const storedName = new Map(Object.entries(tensors).map(([n, t]) => [t, n]));
  const leaves = names.map((name, i) => {
    const t = match.found.get(name);
    return t ? toParam(t, avals[i]!, name, where, opts.device, storedName.get(t)) : fresh!.get(name)!;
  });
  const params = k.flatten(tree).treedef.unflatten(leaves) as Params;
  return { task: "sequence-classification", model, params, head: fresh ? "initialized" : "loaded", notices };
}
