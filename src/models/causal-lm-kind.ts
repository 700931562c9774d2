// What a causal LM is as a kind of model (the task its families are for, in words; causal attention,
// so a config may name no pad id and its tokenizer gets a decoder's template) and how its directory
// loads: every parameter there, the head stored once or twice. Llama and GPT-2 are of it.
import { join } from "node:path";
import * as k from "../core/index.js";
import type { Params } from "./language-model.js";
import type { CausalLanguageModel } from "./causal-lm.js";
import type { KindLoad, ModelKind } from "./spec.js";
import { matchCheckpointNames, nameList } from "./checkpoint-names.js";
import { checkStoredTies, parameterLayout, readCheckpointTensors, toParam } from "./checkpoint-read.js";

/** A causal LM loaded from a directory, with its parameters. */
export interface PretrainedCausalModel {
  task: "causal-lm";
  model: CausalLanguageModel;
  params: Params;
  /** What the checkpoint held that the model does not use (old buffers such as GPT-2's attn.bias, other heads). */
  notices: string[];
}

export const causalLmKind: ModelKind = {
  task: "causal-lm",
  words: "a causal language model",
  causal: true,
  load: loadCausal,
};

/** A causal LM's directory: the head stored once or twice (then equal to the embeddings), nothing missing. */
async function loadCausal(w: KindLoad): Promise<PretrainedCausalModel> {
  const { dir, spec, digests } = w;
  const device = w.opts.device;
  const config = w.config as { tie_word_embeddings?: boolean };
  const path = join(dir, "config.json");
  const model = w.model as CausalLanguageModel;
  const { tensors, where } = await readCheckpointTensors(dir, digests);
  const { names, avals, tree } = parameterLayout(model);
  const match = matchCheckpointNames(names, tensors, model.tiedWeights, model.baseModelPrefix);
  const storedName = new Map(Object.entries(tensors).map(([n, t]) => [t, n]));
  checkStoredTies(match, storedName, where, `but ${path} sets tie_word_embeddings: set it to false to load an untied head`);
  if (match.missing.length > 0) {
    const untiedHead = !config.tie_word_embeddings && match.missing.length === 1 && match.missing[0] === "lm_head.weight";
    throw new Error(
      `${where}: missing ${match.missing.length} parameter(s): ${nameList(match.missing)}` +
        (untiedHead ? ` (${path} sets tie_word_embeddings false; set it to true if the head is the token embeddings)` : ""),
    );
  }
  const notices: string[] = [];
  if (match.unused.length > 0)
    notices.push(`${where}: ${match.unused.length} tensor(s) unused by ${spec.architecture}: ${nameList(match.unused)}`);
  const leaves = names.map((name, i) => {
    const t = match.found.get(name)!;
    return toParam(t, avals[i]!, name, where, device, storedName.get(t));
  });
  const params = k.flatten(tree).treedef.unflatten(leaves) as Params;
  return { task: "causal-lm", model, params, notices };
}
