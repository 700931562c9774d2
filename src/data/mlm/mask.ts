// Masked-language-model masking on the host: picks tokens to predict and corrupts the input.
//
// Each non-special, non-padding token is selected with probability `mlmProbability`; a selected token
// becomes [MASK] with probability `maskFraction`, a uniformly random token id with probability
// `randomFraction`, and stays unchanged otherwise. Labels hold the original token at selected
// positions and -100 elsewhere.
//
// Randomness is a pure function of (seed, epoch, example index in the epoch, position), so a traced
// implementation inside a compiled training step can reproduce it bit for bit with 32-bit integer
// ops, and a resumed run masks exactly as the interrupted one would have. With
// h(key0, key1, counter) = hash32 (src/data/random.ts), unsigned 32-bit throughout:
//
//   epochKey = h(seed, 0, epoch)
//   rowKey   = h(epochKey, 0, e)                 e = example index within the epoch
//   bits_d   = h(rowKey, d * 65536, p)           p = position in the row (< 65536)
//
// with d = 0 for selection, 1 for the mask/random/keep choice, 2 for the random token. Distinct
// (d, p) give distinct `counter + key1`, and h is a bijection of that sum for a fixed key0, so the
// three draws of a position never collide. Decisions compare the top 24 bits, k_d = bits_d >>> 8:
//
//   selected      ⇔ k_0 < ceil(mlmProbability · 2^24)
//   [MASK]        ⇔ k_1 < ceil(maskFraction · 2^24)
//   random token  ⇔ otherwise k_1 < ceil((maskFraction + randomFraction) · 2^24)
//   random id     = floor(k_2 · vocabSize / 2^24)
//
// (k_2 · vocabSize / 2^24 in 32-bit integers, for vocabSize < 2^20: split k_2 = hi·2^12 + lo, then
// id = (hi·vocabSize + ((lo·vocabSize) >>> 12)) >>> 12.)
import { hash32, threshold24 } from "../random.js";
import { IGNORE_LABEL, type MaskedBatch, type TokenBatch } from "../batch.js";

/** Options of masking on the host: the mask token, the vocabulary, the special ids, the probabilities. */
export interface MaskOptions {
  maskTokenId: number;
  /** Random replacement ids are drawn uniformly from [0, vocabSize). */
  vocabSize: number;
  /** Ids never selected (e.g. [CLS], [SEP], <pad>). */
  specialIds: ReadonlySet<number> | readonly number[];
  mlmProbability?: number;
  maskFraction?: number;
  randomFraction?: number;
  /** Unsigned 32-bit seed. */
  seed: number;
  /** Masks are redrawn every epoch. */
  epoch?: number;
  /** Epoch-wide index of the batch's first example (batchIndex * batchSize in a pipeline). */
  exampleOffset?: number;
}

const SELECT_STREAM = 0;
const ACTION_STREAM = 1;
const TOKEN_STREAM = 2;

/** The per-row key of the documented derivation: h(h(seed, 0, epoch), 0, exampleIndex). */
export function maskRowKey(seed: number, epoch: number, exampleIndex: number): number {
  return hash32(hash32(seed >>> 0, 0, epoch >>> 0), 0, exampleIndex >>> 0);
}

/** BERT's share of the tokens selected for prediction, the default. */
export const DEFAULT_MLM_PROBABILITY = 0.15;

/** BERT's shares of the selected tokens, the defaults: [MASK] for 80%, a random id for 10%, the rest kept. */
export const DEFAULT_MASK_FRACTION = 0.8;
export const DEFAULT_RANDOM_FRACTION = 0.1;

/** Returns a masked copy of `batch` with labels. The input batch is not modified. */
export function maskTokens(batch: TokenBatch, options: MaskOptions): MaskedBatch {
  const { maskTokenId, vocabSize, seed, epoch = 0, exampleOffset = 0 } = options;
  const mlmProbability = options.mlmProbability ?? DEFAULT_MLM_PROBABILITY;
  const maskFraction = options.maskFraction ?? DEFAULT_MASK_FRACTION;
  const randomFraction = options.randomFraction ?? DEFAULT_RANDOM_FRACTION;
  checkOptions(batch, options, mlmProbability, maskFraction, randomFraction);
  const [rows, length] = batch.shape;
  // A lookup table rather than a Set: this test runs for every token.
  const specialIds = [...options.specialIds];
  const special = new Uint8Array(Math.max(0, ...specialIds.map((id) => id + 1)));
  for (const id of specialIds) if (id >= 0) special[id] = 1;
  const selectBelow = threshold24(mlmProbability);
  const maskBelow = threshold24(maskFraction);
  const randomBelow = threshold24(maskFraction + randomFraction);

  const inputIds = batch.inputIds.slice();
  const labels = new Int32Array(rows * length).fill(IGNORE_LABEL);
  const mask = batch.attentionMask;
  for (let row = 0; row < rows; row++) {
    const rowKey = maskRowKey(seed, epoch, exampleOffset + row);
    for (let p = 0, i = row * length; p < length; p++, i++) {
      const id = inputIds[i]!;
      if (mask[i] === 0 || (id >= 0 && id < special.length && special[id] === 1)) continue;
      if (hash32(rowKey, SELECT_STREAM * 65536, p) >>> 8 >= selectBelow) continue;
      labels[i] = id;
      const action = hash32(rowKey, ACTION_STREAM * 65536, p) >>> 8;
      if (action < maskBelow) inputIds[i] = maskTokenId;
      else if (action < randomBelow) inputIds[i] = Math.floor(((hash32(rowKey, TOKEN_STREAM * 65536, p) >>> 8) * vocabSize) / 2 ** 24);
    }
  }
  return { inputIds, attentionMask: batch.attentionMask, shape: [rows, length], labels };
}

function checkOptions(batch: TokenBatch, o: MaskOptions, mlm: number, maskF: number, randomF: number): void {
  const [rows, length] = batch.shape;
  if (batch.inputIds.length !== rows * length || batch.attentionMask.length !== rows * length) {
    throw new RangeError(
      `maskTokens: batch arrays hold ${batch.inputIds.length} ids and ${batch.attentionMask.length} mask values, ` +
        `expected ${rows}×${length}`,
    );
  }
  if (length >= 65536) throw new RangeError(`maskTokens: rows of ${length} tokens are too long; positions must be below 65536`);
  for (const [name, v] of [
    ["mlmProbability", mlm],
    ["maskFraction", maskF],
    ["randomFraction", randomF],
  ] as const) {
    if (!(v >= 0 && v <= 1)) throw new RangeError(`maskTokens: ${name} must be in [0, 1], got ${v}`);
  }
  if (maskF + randomF > 1) throw new RangeError(`maskTokens: maskFraction + randomFraction must be at most 1, got ${maskF} + ${randomF}`);
  if (!Number.isInteger(o.vocabSize) || o.vocabSize < 1 || o.vocabSize >= 2 ** 31)
    throw new RangeError(`maskTokens: vocabSize must be a positive int32, got ${o.vocabSize}`);
  if (!Number.isInteger(o.maskTokenId)) throw new RangeError(`maskTokens: maskTokenId must be an integer, got ${o.maskTokenId}`);
  if (!Number.isInteger(o.seed)) throw new RangeError(`maskTokens: seed must be an integer, got ${o.seed}`);
}

/**
 * A dataset map function that masks each batch, keyed by its epoch and position in the epoch:
 * `dataset.map(maskingMap({ maskTokenId, vocabSize, specialIds, seed }))`.
 */
export function maskingMap(
  options: Omit<MaskOptions, "epoch" | "exampleOffset">,
): (batch: TokenBatch, info: { epoch: number; exampleOffset: number }) => MaskedBatch {
  return (batch, info) => maskTokens(batch, { ...options, epoch: info.epoch, exampleOffset: info.exampleOffset });
}
