// The fixed shapes generation compiles for. A compiled program has one shape, so prompts are padded
// (on the left) to a length bucket and the key/value cache is preallocated at a capacity bucket: a
// handful of shapes, and so of compiles, serve every prompt. Prompt buckets are powers of two from 16;
// capacity buckets are those and the half-way 1.5 × 2^k between them (24, 48, 96, 192, …): every decode
// step attends to the whole cache, so a slot never filled costs every step of the call, and half-octave
// buckets leave at most a third of the cache unused instead of half (a 128-token prompt with 64 new
// tokens: 192 slots, not 256).

/** The smallest bucket: prompts shorter than this share one prefill program. */
export const SMALLEST_BUCKET = 16;

/** Inputs generation refuses before any work (prompts that do not fit, bad options): the caller's to fix. */
export class GenerateInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GenerateInputError";
  }
}

/** The smallest power of two ≥ n and ≥ SMALLEST_BUCKET. */
export function bucketFor(n: number): number {
  if (!(Number.isInteger(n) && n >= 0)) throw new Error(`a length bucket needs a non-negative integer, got ${n}`);
  let b = SMALLEST_BUCKET;
  while (b < n) b *= 2;
  return b;
}

/** The smallest power of two or 1.5 × power of two ≥ n and ≥ SMALLEST_BUCKET (a cache capacity). */
export function capacityBucketFor(n: number): number {
  const b = bucketFor(n);
  return b > SMALLEST_BUCKET && (b / 4) * 3 >= n ? (b / 4) * 3 : b;
}

/** The shapes the generation programs are compiled for: batch rows, prompt length, and cache capacity. */
export interface ShapePlan {
  /** Rows of every program: the prompts, padded up to a power of two by repeating the last prompt. */
  batch: number;
  /** Prompt tokens per row in prefill (the longest prompt's bucket; shorter prompts are left-padded). */
  promptLength: number;
  /** Cache slots per row: the prompt bucket plus room for every new token, rounded up to a capacity bucket. */
  capacity: number;
}

/**
 * The shapes for `promptLengths` prompts that each get up to `maxNewTokens` new tokens from a model
 * with positions for `maxLength` tokens. A prompt that would run past the model's positions is an
 * error naming the numbers (Kiln does not cut prompts silently; shorten the prompt or ask for fewer
 * tokens). The capacity may exceed maxLength: slots hold left padding too, and positions, not slots,
 * are what the model has a limit on.
 */
export function planShapes(promptLengths: readonly number[], maxNewTokens: number, maxLength: number): ShapePlan {
  if (promptLengths.length === 0) throw new GenerateInputError("generate: no prompts given");
  if (!(Number.isInteger(maxNewTokens) && maxNewTokens >= 1))
    throw new GenerateInputError(`generate: maxNewTokens must be an integer ≥ 1, got ${maxNewTokens}`);
  promptLengths.forEach((n, i) => {
    const which = promptLengths.length > 1 ? `prompt ${i + 1}` : "the prompt";
    if (n === 0)
      throw new GenerateInputError(
        `generate: ${which} is empty (no tokens, and the model has no bos_token_id to start from); give some text`,
      );
    if (n + maxNewTokens > maxLength)
      throw new GenerateInputError(
        `generate: ${which} is ${n} tokens; with ${maxNewTokens} new tokens that is ${n + maxNewTokens} positions, ` +
          `but the model has positions for ${maxLength}; ` +
          (n < maxLength
            ? `ask for at most ${maxLength - n} new tokens or shorten the prompt`
            : `shorten the prompt below ${maxLength} tokens`),
      );
  });
  const promptLength = bucketFor(Math.max(...promptLengths));
  return { batch: batchBucket(promptLengths.length), promptLength, capacity: capacityBucketFor(promptLength + maxNewTokens) };
}

/** Batch sizes are powers of two too, so 3 prompts and 4 prompts share programs. */
export function batchBucket(n: number): number {
  let b = 1;
  while (b < n) b *= 2;
  return b;
}
