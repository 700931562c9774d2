// What the quickstart prints after training a causal LM: the eval perplexity curve, and sampled
// continuations of State-of-the-Union-style prompts.
import type { CausalLanguageModel } from "../models/causal-lm.js";
import type { Params } from "../models/language-model.js";
import type { Tokenizer } from "../text/index.js";
import type { Metrics } from "../train/callbacks.js";
import { TextGenerationPipeline } from "../pipelines/text-generation.js";

export const CAUSAL_PROMPTS = ["The state of the Union is", "My fellow citizens,", "Tonight I ask the Congress to", "Our economy"];

/** One line per evaluation: step, eval loss, perplexity, and a bar whose length follows the perplexity. */
export function printPerplexityCurve(evals: readonly Metrics[]): void {
  const top = Math.max(...evals.map((e) => e.eval_perplexity ?? 0));
  console.log("step    eval loss   perplexity");
  for (const e of evals) {
    const ppl = e.eval_perplexity!;
    const bar = "█".repeat(Math.max(1, Math.round((40 * Math.log(ppl)) / Math.log(Math.max(top, Math.E)))));
    console.log(`${String(e.step).padStart(5)}   ${e.eval_loss!.toFixed(4).padStart(9)}   ${ppl.toFixed(1).padStart(10)}  ${bar}`);
  }
}

export interface SampleOptions {
  maxNewTokens: number;
  /** Softmax temperature of the sampling. */
  temperature: number;
  /** Sample among the topK most likely tokens. */
  topK: number;
  seed: number;
}

/**
 * Prints a sampled continuation of each prompt through the text-generation pipeline (compiled prefill
 * and decode over a KV cache, transformers' sampling warpers): what `kiln generate` would print for the
 * trained model. The prompts run as one left-padded batch.
 */
export async function printSampledContinuations(
  model: CausalLanguageModel,
  params: Params,
  tokenizer: Tokenizer,
  prompts: readonly string[],
  o: SampleOptions,
): Promise<void> {
  const pipe = new TextGenerationPipeline(model, params, tokenizer);
  // A short --max-length leaves few positions after the prompt: the continuations get what is left.
  const bos = model.config.bos_token_id === null || model.config.bos_token_id === undefined ? 0 : 1;
  const longest = Math.max(...prompts.map((p) => tokenizer.encode(p, { addSpecialTokens: false }).length + bos));
  const maxNewTokens = Math.min(o.maxNewTokens, model.maxLength - longest);
  if (maxNewTokens < 1) {
    console.log(`(no room for a continuation: the prompts fill the model's ${model.maxLength} positions)`);
    return;
  }
  const out = await pipe.generate(prompts, { maxNewTokens, temperature: o.temperature, topK: o.topK, seed: o.seed });
  prompts.forEach((prompt, i) => console.log(`${prompt} → ${out.texts[i]!.trim()}`));
}
