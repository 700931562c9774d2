// Prompts of different lengths as one fixed-shape batch, left-padded as transformers pads decoder
// prompts: every row's last prompt token sits in the same slot, so the next token of every row is
// read from one position and written to one cache slot. Positions count real tokens only
// (cumsum(mask) - 1), and the slot mask hides the padding from attention.
import type { ShapePlan } from "./buckets.js";

export interface PromptBatch {
  /** Token ids [batch, promptLength], left-padded with `padId`. */
  ids: Int32Array;
  /** Position of each token [batch, promptLength]: 0 … n-1 on a row's n real tokens, 0 on padding. */
  positions: Int32Array;
  /** Which cache slots hold a real token [batch, capacity] (1) after prefill. */
  slotMask: Int32Array;
  /** The position each row's first new token takes: its prompt length [batch]. */
  nextPositions: Int32Array;
}

/** Lays `prompts` out as `plan` says; rows past the prompts (batch padding) repeat the last prompt. */
export function layOutPrompts(prompts: readonly (readonly number[])[], plan: ShapePlan, padId: number): PromptBatch {
  const { batch, promptLength: p, capacity: c } = plan;
  const ids = new Int32Array(batch * p).fill(padId);
  const positions = new Int32Array(batch * p);
  const slotMask = new Int32Array(batch * c);
  const nextPositions = new Int32Array(batch);
  for (let r = 0; r < batch; r++) {
    const prompt = prompts[Math.min(r, prompts.length - 1)]!;
    const n = prompt.length;
    if (n > p) throw new Error(`generate: a prompt of ${n} tokens does not fit the prompt bucket of ${p}`);
    for (let j = 0; j < n; j++) {
      ids[r * p + p - n + j] = prompt[j]!;
      positions[r * p + p - n + j] = j;
      slotMask[r * c + p - n + j] = 1;
    }
    nextPositions[r] = n;
  }
  return { ids, positions, slotMask, nextPositions };
}
