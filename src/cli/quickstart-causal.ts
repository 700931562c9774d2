// What the quickstart prints after training a causal LM: the eval perplexity curve, and sampled
// continuations of State-of-the-Union-style prompts.
import * as k from "../core/index.js";
import type { CausalLanguageModel } from "../models/causal-lm.js";
import type { Params } from "../models/language-model.js";
import type { Tokenizer } from "../text/index.js";
import type { Metrics } from "../train/callbacks.js";

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
  /** The fixed row length of the compiled forward pass (the model's training length). */
  length: number;
}

/**
 * Prints a sampled continuation of each prompt (the model's bos token, then the prompt's tokens),
 * stopping at the eos token. Every token runs the whole-sequence forward pass on one fixed-shape row
 * (a single compile, no key/value cache): the simplest exact sampler, fast enough for a few short
 * continuations of a small model.
 */
export async function printSampledContinuations(
  model: CausalLanguageModel,
  params: Params,
  tokenizer: Tokenizer,
  prompts: readonly string[],
  o: SampleOptions,
): Promise<void> {
  const L = o.length;
  const nextLogits = k.jit(
    (p: Params, ids: k.Array, mask: k.Array, last: k.Array) => {
      const h = model.hidden(p, ids, mask);
      const row = k.take(h.reshape([L, h.shape[2]!]), last, 0);
      return model.lmHead(p, row).astype("f32");
    },
    { name: "sample_next_logits" },
  );
  const bos = model.config.bos_token_id ?? null;
  const eos = model.config.eos_token_id;
  const stops = new Set(eos === null || eos === undefined ? [] : Array.isArray(eos) ? eos : [eos]);
  let state = o.seed >>> 0 || 1;
  const uniform = () => {
    // xorshift32: a seeded stream, so a rerun prints the same continuations.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  for (const prompt of prompts) {
    const ids = [...(bos === null ? [] : [bos]), ...tokenizer.encode(prompt, { addSpecialTokens: false })];
    const generated: number[] = [];
    while (generated.length < o.maxNewTokens && ids.length < L) {
      const row = new Int32Array(L).fill(tokenizer.padId),
        mask = new Int32Array(L);
      row.set(ids);
      mask.fill(1, 0, ids.length);
      const logits = (await nextLogits(
        params,
        k.array(row, { shape: [1, L] }),
        k.array(mask, { shape: [1, L] }),
        k.array(new Int32Array([ids.length - 1]), { shape: [1] }),
      ).data()) as Float32Array;
      const token = sampleTopK(logits, o.temperature, o.topK, uniform);
      if (stops.has(token)) break;
      ids.push(token);
      generated.push(token);
    }
    console.log(`${prompt} → ${tokenizer.decode(generated, { skipSpecialTokens: true })}`);
  }
}

/** A token drawn from the softmax of logits / temperature over the topK most likely ones. */
function sampleTopK(logits: Float32Array, temperature: number, topK: number, uniform: () => number): number {
  const order = Array.from(logits.keys())
    .sort((a, b) => logits[b]! - logits[a]!)
    .slice(0, Math.max(1, topK));
  const top = logits[order[0]!]!;
  const weights = order.map((i) => Math.exp((logits[i]! - top) / temperature));
  let u = uniform() * weights.reduce((a, b) => a + b, 0);
  for (let j = 0; j < order.length; j++) if ((u -= weights[j]!) <= 0) return order[j]!;
  return order.at(-1)!;
}
