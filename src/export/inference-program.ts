// The inference program that an export writes: input_ids, attention_mask → logits and the encoder's last
// hidden state, traced by the engine from the same model functions that training and fill-mask run, with
// the weights captured as constants (so the graph carries them as initializers).
import * as k from "../core/index.js";
import type { Program } from "../core/ir.js";
import type { MaskedLanguageModel, Params } from "../models/masked-lm.js";

export interface InferenceSignature {
  readonly batch: number;
  readonly length: number;
}

/** Output names, in program order, as transformers.js and Optimum name them. */
const LOGITS = "logits";
const LAST_HIDDEN_STATE = "last_hidden_state";

/**
 * Traces the forward pass for one fixed signature. With `withLogits` false (an encoder-only checkpoint,
 * whose head would be random) the program returns the hidden states alone.
 */
export function inferenceProgram(model: MaskedLanguageModel, params: Params, sig: InferenceSignature, withLogits: boolean): Program {
  const forward = k.jit(
    (ids: k.Array, mask: k.Array) => {
      const hidden = model.hidden(params, ids, mask);
      return withLogits ? [model.lmHead(params, hidden).astype("f32"), hidden.astype("f32")] : [hidden.astype("f32")];
    },
    { name: "kiln_inference" },
  );
  const shape = [sig.batch, sig.length];
  return forward.lower(k.zeros(shape, "i32"), k.ones(shape, "i32"));
}

export function inferenceOutputNames(withLogits: boolean): string[] {
  return withLogits ? [LOGITS, LAST_HIDDEN_STATE] : [LAST_HIDDEN_STATE];
}
