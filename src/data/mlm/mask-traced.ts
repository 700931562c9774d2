// MLM masking inside the compiled training step: the same decisions as the host function maskTokens
// (mask.ts), bit for bit, written in the engine's u32 primitives. See mask.ts for the derivation:
//   epochKey = h(seed, 0, epoch); rowKey = h(epochKey, 0, e); bits_d = h(rowKey, d·65536, p)
import * as k from "../../core/index.js";
import { threshold24 } from "../random.js";
import { DEFAULT_MASK_FRACTION, DEFAULT_MLM_PROBABILITY, DEFAULT_RANDOM_FRACTION } from "./mask.js";

/** Options of masking inside the compiled step: the mask token, the vocabulary, the special ids, the probabilities. */
export interface TracedMaskOptions {
  maskTokenId: number;
  vocabSize: number;
  specialIds: readonly number[];
  mlmProbability?: number;
  maskFraction?: number;
  randomFraction?: number;
  seed: number;
}

/**
 * inputIds, attentionMask: i32[batch, length]; `exampleOffset` is the epoch-wide index of row 0 (a
 * replica's or micro-batch's share passes its own), `epoch` redraws the masks every epoch. Both may
 * be traced. Returns the corrupted ids and labels (-100 where not selected).
 */
export function maskTokensTraced(
  inputIds: k.Array,
  attentionMask: k.Array,
  epoch: number | k.Array,
  exampleOffset: number | k.Array,
  o: TracedMaskOptions,
): { inputIds: k.Array; labels: k.Array } {
  const [rows, length] = inputIds.shape as [number, number];
  if (length >= 65536) throw new RangeError(`maskTokensTraced: rows of ${length} tokens are too long; positions must be below 65536`);
  if (o.vocabSize >= 2 ** 19)
    throw new RangeError(`maskTokensTraced: vocabSize ${o.vocabSize} must be below 2^19 for the 32-bit random-id arithmetic`);
  const { mlmProbability = DEFAULT_MLM_PROBABILITY, maskFraction = DEFAULT_MASK_FRACTION, randomFraction = DEFAULT_RANDOM_FRACTION } = o;
  const epochKey = k.hashBits(o.seed, 0, typeof epoch === "number" ? epoch : epoch.reshape([]));
  const offset = typeof exampleOffset === "number" ? exampleOffset >>> 0 : exampleOffset.astype("u32").reshape([]);
  const rowKey = k.hashBits(epochKey, 0, k.iota([rows, 1], 0, "u32").add(offset));
  const pos = k.iota([1, length], 1, "u32");
  const top24 = (stream: number) => k.hashBits(rowKey, stream * 65536, pos).shiftRight(8);
  const select = top24(0),
    action = top24(1),
    token = top24(2);

  let eligible = attentionMask.notEqual(0);
  for (const s of o.specialIds) eligible = eligible.and(inputIds.notEqual(s));
  const selected = eligible.and(select.less(threshold24(mlmProbability)));
  const toMask = selected.and(action.less(threshold24(maskFraction)));
  const toRandom = selected
    .and(action.greaterEqual(threshold24(maskFraction)))
    .and(action.less(threshold24(maskFraction + randomFraction)));
  // floor(token · vocab / 2^24) in u32 without overflow: token = hi·2^12 + lo.
  const hi = token.shiftRight(12),
    lo = token.and(0xfff);
  const randomId = hi.mul(o.vocabSize).add(lo.mul(o.vocabSize).shiftRight(12)).shiftRight(12).astype("i32");
  const ids = k.where(toMask, o.maskTokenId, k.where(toRandom, randomId, inputIds));
  return { inputIds: ids, labels: k.where(selected, inputIds, -100) };
}
