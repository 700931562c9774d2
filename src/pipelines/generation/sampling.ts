// Choosing the next token from one row of logits, as transformers' sampling does: the logits warpers
// (temperature, then top-k, then top-p, in the order GenerationMixin applies them), a softmax, and one
// draw. The draw is a counter-based hash of (seed, row, step), so a seed gives the same text on every
// run and every device, whatever else is generated beside it.
//
// Sampling runs on the host, on the last position's logits that the compiled decode step returns: the
// IR has no sort or top-k primitive, and top-k and top-p as transformers define them (ties kept at the
// k-th value, the cumulative-probability cut of the ascending sort) need one. A row of logits is a few
// kilobytes to tens of kilobytes per step, small beside the step itself. Greedy decoding needs no
// draw and no sort, so it stays in the compiled program (argmax), where several steps run per call.
import { hash32 } from "../../data/random.js";

/** How the next token is drawn: temperature, top-k and top-p. */
export interface SamplingOptions {
  /** Divides the logits before the softmax (> 0; 1 leaves them as they are). */
  temperature?: number;
  /** Keep only the k most likely tokens (and any tied with the k-th); 0 keeps all. */
  topK?: number;
  /** Keep the smallest set of most likely tokens whose probabilities add up to at least p (0 < p ≤ 1; 1 keeps all). */
  topP?: number;
}

/** The defaults of transformers' GenerationConfig when do_sample is on. */
export const SAMPLING_DEFAULTS = { temperature: 1, topK: 50, topP: 1 } as const;

/** What is wrong with these sampling options, or undefined (messages name the option and the valid range). */
export function samplingProblem(opts: SamplingOptions): string | undefined {
  const { temperature, topK, topP } = opts;
  if (temperature !== undefined && !(Number.isFinite(temperature) && temperature > 0))
    return `temperature must be a number > 0, got ${temperature} (for the most likely token every step, use greedy decoding)`;
  if (topK !== undefined && !(Number.isInteger(topK) && topK >= 0)) return `topK must be an integer ≥ 0 (0 keeps every token), got ${topK}`;
  if (topP !== undefined && !(Number.isFinite(topP) && topP > 0 && topP <= 1))
    return `topP must be a number in (0, 1] (1 keeps every token), got ${topP}`;
  return undefined;
}

/**
 * The warped logits of one row: temperature, top-k and top-p as transformers' TemperatureLogitsWarper,
 * TopKLogitsWarper and TopPLogitsWarper compute them (f32, removed tokens at -Infinity).
 */
export function warpLogits(logits: ArrayLike<number>, opts: SamplingOptions = {}): Float32Array {
  const { temperature = SAMPLING_DEFAULTS.temperature, topK = SAMPLING_DEFAULTS.topK, topP = SAMPLING_DEFAULTS.topP } = opts;
  const problem = samplingProblem({ temperature, topK, topP });
  if (problem) throw new Error(`sampling: ${problem}`);
  const v = logits.length;
  const out = Float32Array.from(logits);
  if (temperature !== 1) for (let i = 0; i < v; i++) out[i] = out[i]! / temperature;
  if (topK > 0 && topK < v) {
    // Everything below the k-th largest value goes; tokens tied with it stay, as `scores < topk[..., -1]` keeps them.
    const kth = Float32Array.from(out).sort()[v - topK]!;
    for (let i = 0; i < v; i++) if (out[i]! < kth) out[i] = -Infinity;
  }
  if (topP < 1) {
    // The cumulative softmax from the smallest value up; values whose cumulative probability is still
    // ≤ 1 - p go, and the largest always stays. The values are sorted as numbers (a typed-array sort,
    // no index comparator: a row of 32,000 logits sorts in about a millisecond) and the cut is the
    // value where the sum first passes 1 - p: every token below it goes. Tokens tied with that value
    // all stay, where transformers keeps those its sort happened to put last.
    const finite = out.filter((x) => x > -Infinity).sort();
    let max = -Infinity,
      sum = 0;
    for (let i = 0; i < out.length; i++) if (out[i]! > max) max = out[i]!;
    for (let i = 0; i < out.length; i++) sum += Math.fround(Math.exp(out[i]! - max));
    const cut = Math.fround(1 - topP);
    let cumulative = 0,
      threshold = finite[finite.length - 1]!;
    for (let j = 0; j < finite.length - 1; j++) {
      cumulative = Math.fround(cumulative + Math.fround(Math.fround(Math.exp(finite[j]! - max)) / sum));
      if (cumulative > cut) {
        threshold = finite[j]!;
        break;
      }
    }
    for (let i = 0; i < out.length; i++) if (out[i]! < threshold) out[i] = -Infinity;
  }
  return out;
}

/** Softmax in f32 steps, -Infinity giving probability 0. */
export function softmax(x: ArrayLike<number>): Float32Array {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) if (x[i]! > max) max = x[i]!;
  const p = new Float32Array(x.length);
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += p[i] = Math.exp(x[i]! - max);
  for (let i = 0; i < x.length; i++) p[i] = p[i]! / sum;
  return p;
}

/** The index of the first largest value (torch.argmax's and Kiln's argmax's choice among ties). */
export function argmaxRow(x: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i]! > x[best]!) best = i;
  return best;
}

// Keeps sampling's draws apart from every other use of a seed.
const SAMPLING_DOMAIN = 0x5a3c_9e11;

/** The uniform number in [0, 1) that picks the token of `row` at `step` (32 random bits). */
export function samplingUniform(seed: number, row: number, step: number): number {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`sampling: the seed must be a non-negative integer, got ${seed}`);
  const rowKey = hash32(seed >>> 0, Math.floor(seed / 2 ** 32) >>> 0, row);
  return hash32(rowKey, SAMPLING_DOMAIN, step) / 2 ** 32;
}

/**
 * Draws one token from a row of logits after warping, by the inverse of the cumulative distribution
 * in index order at the uniform number `u` in [0, 1).
 */
export function sampleToken(logits: ArrayLike<number>, opts: SamplingOptions, u: number): number {
  const probs = softmax(warpLogits(logits, opts));
  let cumulative = 0,
    last = 0;
  for (let i = 0; i < probs.length; i++) {
    if (probs[i]! <= 0) continue;
    last = i;
    cumulative += probs[i]!;
    if (u < cumulative) return i;
  }
  // Rounding left the total a hair under u: the last token that had any probability.
  return last;
}
