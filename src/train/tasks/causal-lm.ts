// Causal language modelling: next-token cross-entropy; evaluation adds the perplexity (exp of eval_loss).
import type { CausalLanguageModel } from "../../models/causal-lm.js";
import type { LanguageModel } from "../../models/language-model.js";
import { causalLmObjective } from "../objectives/causal-lm.js";
import type { TaskSpec } from "./task.js";

/** A causal LM is a model with a cached forward pass (what generation decodes with). */
export function isCausalLanguageModel(model: LanguageModel): model is CausalLanguageModel {
  return typeof (model as Partial<CausalLanguageModel>).forwardCached === "function";
}

export const causalLmTask: TaskSpec = {
  name: "causal-lm",
  kind: "a causal LM",
  usesMasking: false,
  accepts: isCausalLanguageModel,
  objective(model, s) {
    if (s.masking)
      throw new Error(
        `a causal LM (${model.config.model_type}) trains on next-token prediction and has no masking: leave out the masking settings`,
      );
    if (s.labelCapacity !== undefined)
      throw new Error(`labelCapacity sizes a masked LM's head; a causal LM (${model.config.model_type}) has none`);
    return causalLmObjective({ model: model as CausalLanguageModel });
  },
  evalMetrics({ lossSum, correct, count }) {
    const loss = count ? lossSum / count : NaN;
    return { eval_loss: loss, eval_perplexity: Math.exp(loss), eval_accuracy: count ? correct / count : 0, eval_tokens: count };
  },
  evalLine: (m) =>
    `perplexity ${m.eval_perplexity!.toFixed(2)}, next-token accuracy ${(100 * m.eval_accuracy!).toFixed(2)}% ` +
    `over ${m.eval_tokens} predicted tokens`,
};
