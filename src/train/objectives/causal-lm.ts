// The causal-LM objective: next-token cross-entropy with the shift done inside the compiled step (the
// hidden state at position i predicts token i+1), so the data are the same token rows the MLM trains
// on, with no labels stored. A target counts when it and the token that predicts it are real tokens
// (attention mask 1): padding is never a target, and a row's last token has none.
import * as k from "../../core/index.js";
import type { CausalLanguageModel } from "../../models/causal-lm.js";
import type { Params } from "../../models/language-model.js";
import { accumulationDtype } from "../../nn/layers.js";
import type { ForwardSettings, ObjectiveBatch, ObjectiveOutputs, TrainingObjective } from "./objective.js";

export interface NextTokenTargets {
  inputIds: k.Array;
  attentionMask: k.Array;
  /** [rows, length - 1]: the token each of positions 0 … length-2 predicts, -100 where none counts. */
  labels: k.Array;
  count: k.Array;
}

/** Next-token targets of a batch of rows [rows, length]: the ids shifted left by one, -100 where they do not count. */
export function nextTokenTargets(inputIds: k.Array, attentionMask: k.Array): NextTokenTargets {
  const length = inputIds.shape[1] ?? 0;
  if (inputIds.ndim !== 2 || length < 2)
    throw new Error(
      `next-token targets need token rows [rows, length] of at least 2 tokens, got ${JSON.stringify(inputIds.shape)}: ` +
        `prepare the data with a maxLength of 2 or more`,
    );
  const next = k.sliceAxis(inputIds, 1, 1, length);
  const real = attentionMask.notEqual(0);
  const counted = k.sliceAxis(real, 1, 1, length).and(k.sliceAxis(real, 1, 0, length - 1));
  return { inputIds, attentionMask, labels: k.where(counted, next, -100), count: counted.astype("f32").sum() };
}

/**
 * Σ next-token cross-entropy, top-1 hits and counted targets, from hidden states [rows, length, hidden]
 * and the targets of nextTokenTargets. `head` (the model's vocabulary head) runs on positions 0 …
 * length-2 only (the last one has nothing to predict); the logits are taken in at least f32.
 */
export function nextTokenLoss(hidden: k.Array, labels: k.Array, head: (rows: k.Array) => k.Array): ObjectiveOutputs {
  const [, length, width] = hidden.shape as [number, number, number];
  const out = head(k.sliceAxis(hidden, 1, 0, length - 1).reshape([-1, width]));
  const logits = out.astype(accumulationDtype(out.dtype));
  const lab = labels.reshape([-1]);
  const counted = lab.notEqual(-100);
  const hit = k.labelIsTop(logits, lab);
  return {
    lossSum: k.crossEntropy(logits, lab, { reduction: "sum" }),
    correct: hit.astype("f32").sum(),
    count: counted.astype("f32").sum(),
    dropped: k.scalar(0),
  };
}

/** The causal LM objective: next-token cross-entropy over each row's real tokens. */
export function causalLmObjective(o: { model: CausalLanguageModel }): TrainingObjective<NextTokenTargets> {
  const { model } = o;
  return {
    task: "causal-lm",
    model,
    targets: (batch: ObjectiveBatch) => nextTokenTargets(batch.inputIds, batch.attentionMask),
    outputs(params: Params, t: NextTokenTargets, forward: ForwardSettings): ObjectiveOutputs {
      const h = model.hidden(params, t.inputIds, t.attentionMask, forward);
      return nextTokenLoss(h, t.labels, (rows) => model.lmHead(params, rows));
    },
  };
}
