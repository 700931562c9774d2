// Causal self-attention for decoders, with grouped key/value heads (GQA: several query heads share one
// key/value head, as transformers' repeat_kv lays them out) and a key/value cache of fixed shape that a
// compiled decode step writes into at a traced offset.
import * as k from "../core/index.js";
import { accumulationDtype } from "./layers.js";
import type { DropoutSites } from "./dropout-sites.js";

/**
 * The score given to keys a query must not see. Large and finite rather than -Infinity: a query row
 * whose keys are all masked (a padding position) then softmaxes to a uniform average instead of
 * 0/0 = NaN, and NaN in a hidden state nobody reads would still poison gradients through 0 · NaN.
 * The scores are masked in f32, so the value needs no 16-bit representation.
 */
export const MASKED_SCORE = -1e9;

/**
 * Which keys each query sees in a whole-sequence forward: key j ≤ query i, and j a real token
 * (attentionMask 1). [batch, 1, 1, seq, seq] (bool), broadcast over key/value heads and groups.
 */
export function causalVisibility(attentionMask: k.Array): k.Array {
  const [b, t] = attentionMask.shape as [number, number];
  const causal = k.iota([t, t], 1, "i32").lessEqual(k.iota([t, t], 0, "i32"));
  const real = attentionMask.notEqual(0).reshape([b, 1, t]);
  return causal.reshape([1, t, t]).and(real).reshape([b, 1, 1, t, t]);
}

/**
 * Which cache slots each new token sees: the row's slots in `slotMask` [batch, capacity], and among
 * the new tokens (slots start … start+t-1) only those at or before it. [batch, 1, 1, t, capacity].
 */
export function cachedVisibility(slotMask: k.Array, start: number | k.Array, t: number): k.Array {
  const [b, capacity] = slotMask.shape as [number, number];
  const slot = k.iota([t, capacity], 1, "i32");
  const last = k.iota([t, capacity], 0, "i32").add(typeof start === "number" ? start : start.astype("i32"));
  const visible = slot.lessEqual(last).reshape([1, t, capacity]);
  return visible.and(slotMask.notEqual(0).reshape([b, 1, capacity])).reshape([b, 1, 1, t, capacity]);
}

/**
 * Writes `fresh` [batch, kvHeads, t, headDim] into `cache` [batch, kvHeads, capacity, headDim] at slots
 * start … start+t-1. A number `start` is a static splice. A traced one scatter-adds (new − old) into
 * those t slots, so a decode step touches t slots instead of rewriting the whole cache (a select over
 * every slot was a third of a decode step's kernel time). Generation fills a cache front to back, so the
 * old values are the zeros of a fresh cache and the write is exact; over a filled slot it overwrites to
 * within rounding. Slots past the capacity are not written (their updates are zeroed).
 */
export function writeCache(cache: k.Array, fresh: k.Array, start: number | k.Array): k.Array {
  const [b, h, capacity, d] = cache.shape as [number, number, number, number];
  const t = fresh.shape[2]!;
  const value = fresh.astype(cache.dtype);
  if (typeof start === "number") {
    if (start < 0 || start + t > capacity)
      throw new Error(`writeCache: slots ${start} … ${start + t - 1} do not fit a cache of ${capacity} slots (make the cache larger)`);
    const parts = [cache.slice([0, 0, 0, 0], [b, h, start, d]), value, cache.slice([0, 0, start + t, 0], [b, h, capacity, d])];
    return k.concat(
      parts.filter((p) => p.shape[2]! > 0),
      2,
    );
  }
  const slots = k.iota([t], 0, "i32").add(start.astype("i32"));
  const inRange = slots.greaterEqual(0).and(slots.less(capacity)).reshape([1, 1, t, 1]);
  // Out-of-range slots would be clamped onto the first or last slot by the scatter; their updates are zero.
  const update = k.where(inRange, value.sub(k.take(cache, slots, 2)), 0);
  return k.scatterAdd(cache, slots, update, 2);
}

/**
 * where(visible, scores · scale, fill) as scores · (scale or 0) + (0 or fill), both factors at the mask's
 * (and the fill's) small shape: the same scores for finite ones, and the gradient one product with the
 * same factor, where a select's gradient is another select over every score (ONNX Runtime's Where is
 * among its slowest kernels: 30 ms of llama-small's 950 ms training step, forward and back).
 */
export function maskedScores(scores: k.Array, visible: k.Array, scale: number, fill: number | k.Array): k.Array {
  const factor = k.where(visible, scale, 0).astype(scores.dtype);
  const bias = k.where(visible, 0, fill).astype(scores.dtype);
  return scores.mul(factor).add(bias);
}

/** Attention dropout inside a layer: the dropout sites, the rate, and the layer's site index. */
export interface AttentionDropout {
  sites: DropoutSites;
  rate: number;
  site: number | k.Array;
}

/**
 * softmax(q·kᵀ · scale, masked) · v with grouped heads. q [batch, t, heads, headDim]; keys and values
 * [batch, kvHeads, s, headDim] (heads a multiple of kvHeads: query head h reads key/value head
 * h / (heads/kvHeads)); `visible` broadcasts to [batch, kvHeads, groups, t, s]. Scores and softmax in
 * at least f32, the rest in q's dtype. Returns [batch, t, heads · headDim].
 */
export function groupedAttention(
  q: k.Array,
  keys: k.Array,
  values: k.Array,
  visible: k.Array,
  scale: number,
  dropout?: AttentionDropout,
): k.Array {
  const [b, t, heads, d] = q.shape as [number, number, number, number];
  const kvHeads = keys.shape[1]!;
  const grouped = q.reshape([b, t, kvHeads, heads / kvHeads, d]);
  // Scores laid out [batch, kvHeads, t, groups, s]: the product's own order (its free query axes t and
  // groups stay in q's order), so neither product nor its gradients transposes the [t, s] score arrays, the
  // largest of the layer; only q-sized arrays move. The mask is read in the same order.
  const scores = k.einsum("btngd,bnsd->bntgs", grouped, keys.astype(q.dtype));
  const ranked = visible.reshape([...globalThis.Array<number>(5 - visible.ndim).fill(1), ...visible.shape]);
  const shown = k.transpose(ranked, [0, 1, 3, 2, 4]);
  const masked = maskedScores(scores.astype(accumulationDtype(q.dtype)), shown, scale, MASKED_SCORE);
  let probs = k.softmax(masked, -1).astype(q.dtype);
  if (dropout) probs = dropout.sites.apply(probs, dropout.rate, dropout.site);
  return k.einsum("bntgs,bnsd->btngd", probs, values.astype(q.dtype)).reshape([b, t, heads * d]);
}

/**
 * One layer's keys and values [batch, kvHeads, capacity, headDim], and `fresh`: keys and values
 * [batch, kvHeads, n, headDim] of tokens not yet written into them (see attendCached).
 */
export interface CachedKeysValues {
  key: k.Array;
  value: k.Array;
  fresh?: { key: k.Array; value: k.Array };
}

/**
 * A layer's attention in a forward pass over its cache: the new tokens' keys and values [batch,
 * kvHeads, t, headDim] are written at slots start … start+t-1 and q attends to the slots `visible`
 * allows. With `deferWrites` (one token per row, t = 1) they are appended to the layer's fresh rows
 * instead and q attends to the visible slots and every fresh row: the caller writes the fresh rows
 * (writeCache) after its last step, so a decode call of several steps writes the cache once, after
 * every read of it, which an executor can do in place instead of copying the cache.
 */
export function attendCached(
  layer: CachedKeysValues,
  q: k.Array,
  keys: k.Array,
  values: k.Array,
  start: number | k.Array,
  visible: k.Array,
  scale: number,
  deferWrites = false,
): { context: k.Array; layer: CachedKeysValues } {
  if (!deferWrites) {
    const next = { key: writeCache(layer.key, keys, start), value: writeCache(layer.value, values, start) };
    return { context: groupedAttention(q, next.key, next.value, visible, scale), layer: next };
  }
  if (q.shape[1] !== 1) throw new Error(`attendCached: deferred cache writes take one token per row, got ${q.shape[1]}`);
  const fresh = {
    key: layer.fresh ? k.concat([layer.fresh.key, keys.astype(layer.key.dtype)], 2) : keys.astype(layer.key.dtype),
    value: layer.fresh ? k.concat([layer.fresh.value, values.astype(layer.value.dtype)], 2) : values.astype(layer.value.dtype),
  };
  return { context: groupedAttentionWithFresh(q, layer, fresh, visible, scale), layer: { key: layer.key, value: layer.value, fresh } };
}

/**
 * groupedAttention over the cache's visible slots and, besides them, `fresh` keys and values that every
 * query sees: one softmax over both score sets, the context the sum of both products.
 */
function groupedAttentionWithFresh(
  q: k.Array,
  cache: { key: k.Array; value: k.Array },
  fresh: { key: k.Array; value: k.Array },
  visible: k.Array,
  scale: number,
): k.Array {
  const [b, t, heads, d] = q.shape as [number, number, number, number];
  const kvHeads = cache.key.shape[1]!;
  const [capacity, n] = [cache.key.shape[2]!, fresh.key.shape[2]!];
  // The scale applied to the query once rather than to both score sets (exact for a power of two: 1/√64).
  const grouped = q.mul(scale).reshape([b, t, kvHeads, heads / kvHeads, d]);
  const acc = accumulationDtype(q.dtype);
  const scores = (keys: k.Array) => k.einsum("btngd,bnsd->bngts", grouped, keys.astype(q.dtype)).astype(acc);
  const both = k.concat([k.where(visible, scores(cache.key), MASKED_SCORE), scores(fresh.key)], -1);
  const [old, now] = k.split(k.softmax(both, -1).astype(q.dtype), [capacity, n], -1) as [k.Array, k.Array];
  const context = (probs: k.Array, values: k.Array) => k.einsum("bngts,bnsd->btngd", probs, values.astype(q.dtype));
  return context(old, cache.value)
    .add(context(now, fresh.value))
    .reshape([b, t, heads * d]);
}
