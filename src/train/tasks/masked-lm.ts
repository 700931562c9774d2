// Masked language modelling: masked-token cross-entropy, the masking drawn inside the compiled step.
import type { LanguageModel } from "../../models/language-model.js";
import type { MaskedLanguageModel } from "../../models/masked-lm.js";
import { maskedLmObjective } from "../objectives/mlm.js";
import type { TaskSpec } from "./task.js";
import { isCausalLanguageModel } from "./causal-lm.js";

/**
 * The quickstart's masked-LM recipe, sized to about 4 minutes on 2 idle cores (mlm-mini trains at about 17,500 tokens/s
 * on the AMD EPYC (Zen 5) this was measured on; the 1,000 steps of the earlier recipe took 2 minutes there).
 * What decides it is the local-attention start (see local-attention-init.ts). From transformers' init or
 * plain sinusoids, this model (and the same RoBERTa in PyTorch) guesses the most frequent piece at every
 * [MASK] for thousands of steps: eval masked accuracy 13.6% after 1,000 steps, all of it from copying the
 * selected tokens left unchanged. From the local-attention start: 20.7 / 25.0 / 27.2% after 334 / 668 / 1,000
 * steps, and "the United [MASK] of America" puts "States" first. These 2,000 steps: 24.7 / 29.9 / 31.9% after
 * 667 / 1,334 / 2,000, and "The State of the [MASK] is strong." has "Union" third (4 minutes from a clean
 * clone). With dropout's later draws (two 16-bit halves per hash) the same recipe gives 24.9 / 29.8 / 31.7%
 * and "Union" fourth (0.037, after Government, country, Nation): its rank moves with the draws, as between
 * seeds. 3,000 steps reach 34.3% but do not bring "Union" up; nor does mlm-small (29.7% after 1,500 steps).
 * Also measured on SOTU at batch 16 × 128, lr 1e-3:
 * - mlm-mini (2 layers): 9.5% after 200 steps against mlm-small's 8.5%, at 0.6× the CPU per step;
 * - 2048 pieces instead of 8192: a cheaper head, and more tokens are pieces of words that their neighbours
 *   decide (a count model guessing a token from the two beside it gets 32% at 2048 pieces, 23.5% at 8192).
 * Its three evaluations cost little of the budget (each is a forward pass over the validation split), and
 * its start is chance anyway, so none comes before the first step.
 */
const QUICKSTART = { preset: "mlm-mini", steps: 2000, batch: 16, learningRate: 1e-3, vocabSize: 2048 } as const;

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
      ...(s.labelledPositionsOnly !== undefined ? { labelledPositionsOnly: s.labelledPositionsOnly } : {}),
    });
  },
  evalMetrics: ({ lossSum, correct, count }) => ({
    eval_loss: count ? lossSum / count : NaN,
    eval_accuracy: count ? correct / count : 0,
    eval_tokens: count,
  }),
  evalLine: (m) => `masked accuracy ${(100 * m.eval_accuracy!).toFixed(2)}% over ${m.eval_tokens} masked tokens`,
  trainHelp: [
    "a masked LM (RoBERTa/BERT). Masking (15% of tokens: 80% [MASK], 10% random,",
    "10% kept) runs inside the compiled training step and is redrawn every epoch.",
  ],
  // The line break keeps `kiln bench train --help` within its width.
  benchHelp: "MLM (AdamW,\ndropout 0.1, masking in the step)",
  benchPreset: "mlm-small",
  ownSettings: {
    "masking.mlmProbability": "sets the masking of a masked LM",
    positionInit: "starts a masked LM's position table",
    head: "sizes the MLM's vocabulary head",
  },
  quickstart: {
    ...QUICKSTART,
    modelInit: { positionInit: "local-attention" },
    evaluations: 3,
    evalAtStart: false,
    modelDir: "model",
    help: [
      `${QUICKSTART.vocabSize} pieces; ${QUICKSTART.preset} with local-attention init, ${QUICKSTART.steps} steps of`,
      `${QUICKSTART.batch} at ${QUICKSTART.learningRate.toExponential()}, and fill-mask predictions that need context`,
      "(model in DIR/model)",
    ],
    curves: [
      ["eval_loss", 4],
      ["eval_accuracy", 4],
    ],
  },
};
