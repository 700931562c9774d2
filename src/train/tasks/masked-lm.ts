// Masked language modelling: masked-token cross-entropy, the masking drawn inside the compiled step.
import type { LanguageModel } from "../../models/language-model.js";
import type { MaskedLanguageModel } from "../../models/masked-lm.js";
import { maskedLmObjective } from "../objectives/mlm.js";
import type { TaskSpec } from "./task.js";
import { isCausalLanguageModel } from "./causal-lm.js";

export const maskedLmTask: TaskSpec = {
  name: "mlm",
  kind: "a masked LM",
  usesMasking: true,
  // A masked LM has a vocabulary head and no cached forward pass (a classifier has neither).
  accepts: (model: LanguageModel) => typeof (model as Partial<MaskedLanguageModel>).lmHead === "function" && !isCausalLanguageModel(model),
  objective(model, s) {
    if (!s.masking)
      throw new Error(
        `a masked LM (${model.config.model_type}) trains with masking: ` +
          `give the masking settings (mask token id, vocabulary size, special ids)`,
      );
    return maskedLmObjective({
      model: model as MaskedLanguageModel,
      masking: s.masking,
      ...(s.labelCapacity !== undefined ? { labelCapacity: s.labelCapacity } : {}),
    });
  },
  evalMetrics: ({ lossSum, correct, count }) => ({
    eval_loss: count ? lossSum / count : NaN,
    eval_accuracy: count ? correct / count : 0,
    eval_tokens: count,
  }),
  evalLine: (m) => `masked accuracy ${(100 * m.eval_accuracy!).toFixed(2)}% over ${m.eval_tokens} masked tokens`,
};
