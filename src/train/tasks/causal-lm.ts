// Causal language modelling: next-token cross-entropy; evaluation adds the perplexity (exp of eval_loss).
import type { CausalLanguageModel } from "../../models/causal-lm.js";
import type { LanguageModel } from "../../models/language-model.js";
import { causalLmObjective } from "../objectives/causal-lm.js";
import type { TaskSpec } from "./task.js";

/**
 * The quickstart's causal recipe, sized to about 6 minutes on 2 quiet cores from measured throughput:
 * llama-small at batch 8 × 128 trained at 2,601 tokens/s on 2 cores (the run got 177% CPU), so 600 steps
 * of 1,024 tokens take about 4 minutes, and the five evaluations (forward passes over the 3% validation
 * split) about 1.5 more (400 steps and the evaluations took 4 min 15 s there).
 * Batch 8 at 1.5e-3 learned the most per token among the settings tried on this corpus (eval loss after
 * 254k tokens: 6.21; batch 8 at 2e-3 6.26, at 3e-3 6.35; batch 16 at 2e-3 6.38, at 4e-3 6.36).
 * The perplexity curve: four evaluations after the one at the start. The job trains for a budget of 330 s
 * so that it fits its minutes on any machine: 631 steps in 323 s (perplexity 8,555 → 258) on 2 cores of an
 * Intel Xeon while a benchmark shared them.
 * Linear decay, not the masked LM's warmup_stable_decay: at 1,800 fixed steps (about what the budget reaches),
 * seed 42, perplexity 117.1 and next-token accuracy 21.90% with linear decay, 115.4 and 21.79% with the peak
 * held until the last 20%: no clear gain.
 */
const QUICKSTART = { preset: "llama-small", steps: 600, maxTime: 330, batch: 8, learningRate: 1.5e-3, vocabSize: 8192 } as const;

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
    if (s.labelCapacity !== undefined || s.labelledPositionsOnly !== undefined)
      throw new Error(
        `${s.labelCapacity !== undefined ? "labelCapacity" : "labelledPositionsOnly"} sizes a masked LM's head; ` +
          `a causal LM (${model.config.model_type}) has none`,
      );
    return causalLmObjective({ model: model as CausalLanguageModel });
  },
  evalMetrics({ lossSum, correct, count }) {
    const loss = count ? lossSum / count : NaN;
    return { eval_loss: loss, eval_perplexity: Math.exp(loss), eval_accuracy: count ? correct / count : 0, eval_tokens: count };
  },
  evalLine: (m) =>
    `perplexity ${m.eval_perplexity!.toFixed(2)}, next-token accuracy ${(100 * m.eval_accuracy!).toFixed(2)}% ` +
    `over ${m.eval_tokens} predicted tokens`,
  trainHelp: [
    "a causal LM (Llama/GPT-2): next-token cross-entropy, the shift done inside the compiled",
    "step, padding never a target; evaluation logs eval_perplexity (exp of eval_loss).",
  ],
  benchHelp: "next-token prediction",
  benchPreset: "llama-small",
  quickstart: {
    ...QUICKSTART,
    evaluations: 4,
    evalAtStart: true,
    modelDir: "causal-model",
    help: [
      `${QUICKSTART.vocabSize} pieces; ${QUICKSTART.preset} trained for ${QUICKSTART.maxTime} s ` +
        `(--steps ${QUICKSTART.steps} for a fixed run) on`,
      `batches of ${QUICKSTART.batch} at ${QUICKSTART.learningRate.toExponential()}; ` +
        "the eval perplexity curve and sampled continuations of",
      "State-of-the-Union-style prompts (model in DIR/causal-model)",
    ],
    curves: [
      ["eval_loss", 4],
      ["eval_perplexity", 2],
      ["eval_accuracy", 4],
    ],
  },
};
