// What a masked LM is as a kind of model (the task its families are for, in words; bidirectional
// attention) and how its directory loads: the encoder must be there, a missing head may be initialized
// (transformers' encoder-only checkpoints), a head stored untied is refused. RoBERTa and BERT are of it.
import * as k from "../core/index.js";
import type { Params } from "./language-model.js";
import type { MaskedLanguageModel } from "./masked-lm.js";
import type { KindLoad, ModelKind } from "./spec.js";
import { matchCheckpointNames, nameList } from "./checkpoint-names.js";
import { checkStoredTies, parameterLayout, readCheckpointTensors, toParam } from "./checkpoint-read.js";

/** A masked LM loaded from a directory, with its parameters. */
export interface PretrainedModel {
  task: "mlm";
  model: MaskedLanguageModel;
  params: Params;
  /** Whether the masked-LM head came from the checkpoint or was initialized here. */
  mlmHead: "loaded" | "initialized";
  /** What the checkpoint held that does not map one to one onto the model (an encoder-only file, unused tensors). */
  notices: string[];
}

export const maskedLmKind: ModelKind = {
  task: "mlm",
  words: "a masked language model",
  causal: false,
  load: loadMasked,
};

/** A masked LM's directory, its head missing or not (see KindLoad.missingHead). */
async function loadMasked(w: KindLoad): Promise<PretrainedModel> {
  const { dir, spec, opts, digests } = w;
  const model = w.model as MaskedLanguageModel;
  const { tensors, where } = await readCheckpointTensors(dir, digests);
  const { names, avals, tree } = parameterLayout(model);
  const match = matchCheckpointNames(names, tensors, model.tiedWeights, model.baseModelPrefix);
  const notices: string[] = [];
  const storedName = new Map(Object.entries(tensors).map(([n, t]) => [t, n]));
  checkStoredTies(match, storedName, where, "but Kiln ties the two (untied output embeddings are not supported)");
  const inEncoder = (n: string) => n.startsWith(`${model.baseModelPrefix}.`);
  const missingEncoder = match.missing.filter(inEncoder);
  const missingHead = match.missing.filter((n) => !inEncoder(n));
  const headNames = names.filter((n) => !inEncoder(n));
  if (missingEncoder.length > 0)
    throw new Error(`${where}: missing ${missingEncoder.length} encoder parameter(s): ${nameList(missingEncoder)}`);
  let fresh: Map<string, k.Array> | undefined;
  if (missingHead.length > 0) {
    const partial = missingHead.length < headNames.length;
    if (partial || (opts.missingHead ?? "error") === "error")
      throw new Error(
        partial
          ? `${where}: the masked-LM head is incomplete: missing ${nameList(missingHead)}`
          : `${where}: no masked-LM head (${nameList(missingHead)} are missing): ` +
              `an encoder-only checkpoint cannot predict tokens; fine-tune it first (kiln train --init-from)`,
      );
    // The head's leaves of a full init (the compiled program computes only those, not the embeddings).
    const headLeaves = k.jit(
      (key: k.Array) => {
        const all = k.leaves<k.Array>(model.init(key));
        return missingHead.map((n) => all[names.indexOf(n)]!);
      },
      { name: "init_head", device: opts.device },
    )(k.randomKey(opts.seed ?? 0, opts.device));
    fresh = new Map(missingHead.map((n, i) => [n, headLeaves[i]!]));
    notices.push(
      `${where}: no masked-LM head (an encoder-only checkpoint, e.g. ${spec.baseArchitecture}): ` +
        `the encoder is loaded and the head (${nameList(missingHead)}) is freshly initialized`,
    );
  }
  if (match.unused.length > 0)
    notices.push(`${where}: ${match.unused.length} tensor(s) unused by ${spec.architecture}: ${nameList(match.unused)}`);
  const leaves = names.map((name, i) => {
    const t = match.found.get(name);
    return t ? toParam(t, avals[i]!, name, where, opts.device, storedName.get(t)) : fresh!.get(name)!;
  });
  const params = k.flatten(tree).treedef.unflatten(leaves) as Params;
  return { task: "mlm", model, params, mlmHead: fresh ? "initialized" : "loaded", notices };
}
