// Which objective a model trains with: the model decides (a causal LM predicts the next token, a masked
// LM its masked tokens), so a Trainer, `kiln train --task` and checkpoints never disagree with it.
import type { CausalLanguageModel } from "../../models/causal-lm.js";
import type { LanguageModel } from "../../models/language-model.js";
import type { MaskedLanguageModel } from "../../models/masked-lm.js";
import type { TracedMaskOptions } from "../../data/mlm/mask-traced.js";
import { causalLmObjective } from "./causal-lm.js";
import { maskedLmObjective } from "./mlm.js";
import type { TrainingObjective, TrainingTask } from "./objective.js";

/** A causal LM is a model with a cached forward pass (what generation decodes with). */
export function isCausalLanguageModel(model: LanguageModel): model is CausalLanguageModel {
  return typeof (model as Partial<CausalLanguageModel>).forwardCached === "function";
}

export function trainingTask(model: LanguageModel): TrainingTask {
  return isCausalLanguageModel(model) ? "causal-lm" : "mlm";
}

export interface ObjectiveSettings {
  /** The masking of a masked LM (its seed included); refused for a causal LM, which has none. */
  masking?: TracedMaskOptions;
  /** The MLM head's room for labelled positions per micro-batch (masked LMs only). */
  labelCapacity?: number;
}

/** The objective `model` trains with, checked against the settings given for it. */
export function objectiveFor(model: LanguageModel, s: ObjectiveSettings): TrainingObjective {
  if (isCausalLanguageModel(model)) {
    if (s.masking)
      throw new Error(
        `a causal LM (${model.config.model_type}) trains on next-token prediction and has no masking: leave out the masking settings`,
      );
    if (s.labelCapacity !== undefined)
      throw new Error(`labelCapacity sizes a masked LM's head; a causal LM (${model.config.model_type}) has none`);
    return causalLmObjective({ model });
  }
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
}
