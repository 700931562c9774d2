// Attention whose memory grows linearly with the sequence, the way the flash and memory-efficient
// kernels compute it: the queries and keys are cut into tiles, and each query tile walks the key
// tiles keeping a running maximum, a running sum and a running weighted sum of values (the online
// softmax), so no [seq × seq] matrix is ever built.
//
// It is two nested loops (`scan`): over query tiles, and inside it over key tiles. The nesting is what
// keeps the backward pass linear too: autodiff saves the residuals of a loop it replays (the outer one:
// per query tile, its queries and the three running values), but a loop inside another loop's body is
// recomputed from its operands when its VJP runs (src/core/autodiff.ts). So the backward pass, query
// tile by query tile, recomputes that tile's scores against its key tiles and walks them back: it holds
// [tile × seq] scores at a time, never [seq × seq].
//
// Causal attention skips the key tiles above the diagonal. A loop's length is static, so the outer loop
// runs over pairs of query tiles (i, n-1-i), which between them need n + 1 key tiles whatever i is.
import * as k from "../core/index.js";
import { accumulationDtype } from "./layers.js";
import { causalVisibility, groupedAttention, maskedScores, MASKED_SCORE } from "./causal-attention.js";
import type { DropoutSites } from "./dropout-sites.js";

/** How blockwise attention tiles and masks. */
export interface BlockwiseAttentionOptions {
  /**
   * At most this many queries and keys per tile. The tiles split the sequence evenly (an even number of
   * them when causal), padded to whole tiles with masked keys.
   */
  blockSize: number;
  /** Key j visible to query i only when j ≤ i (a decoder's self-attention). */
  causal: boolean;
  /** The scores' scale, usually 1/√headDim. */
  scale: number;
}

/**
 * softmax(q·kᵀ · scale, masked) · v with grouped heads, tile by tile. q [batch, t, heads, headDim]; keys
 * and values [batch, kvHeads, t, headDim] (query head h reads key/value head h / (heads/kvHeads), as
 * groupedAttention); `keyMask` [batch, t]: 1 for a real key, 0 for padding. The same numbers as
 * groupedAttention with causalVisibility (or the padding alone when not causal), within rounding: a query
 * that sees no key at all averages every key uniformly there, and does here. Scores and softmax in at
 * least f32, the products with the values in q's dtype. Returns [batch, t, heads · headDim].
 */
export function blockwiseAttention(q: k.Array, keys: k.Array, values: k.Array, keyMask: k.Array, o: BlockwiseAttentionOptions): k.Array {
  const [b, t, heads, d] = q.shape as [number, number, number, number];
  const kvHeads = keys.shape[1]!,
    g = heads / kvHeads;
  if (!(Number.isInteger(o.blockSize) && o.blockSize > 0))
    throw new k.OptionError({ option: "blockSize", value: o.blockSize, why: "must be a positive whole number", fix: "use e.g. 128" });
  // Causal: an even number of tiles (they are taken in pairs), none larger than blockSize.
  const n = o.causal ? 2 * Math.ceil(t / (2 * o.blockSize)) : Math.ceil(t / Math.min(o.blockSize, t));
  const block = Math.ceil(t / n);
  const padded = n * block,
    extra = padded - t;
  const acc = accumulationDtype(q.dtype);

  // Tiles along a new leading axis. Queries: [n, batch, kvHeads, groups, block, d], so each tile's
  // scores are one batched matmul with no transpose inside the loop.
  const qTiles = k
    .pad(q, [
      [0, 0],
      [0, extra],
      [0, 0],
      [0, 0],
    ])
    .reshape([b, n, block, kvHeads, g, d])
    .transpose([1, 0, 3, 4, 2, 5]);
  const kvTiles = (x: k.Array) =>
    k
      .pad(x.astype(q.dtype), [
        [0, 0],
        [0, 0],
        [0, extra],
        [0, 0],
      ])
      .reshape([b, kvHeads, n, block, d])
      .transpose([2, 0, 1, 3, 4]);
  const real = k
    .pad(keyMask.notEqual(0), [
      [0, 0],
      [0, extra],
    ])
    .reshape([b, n, block])
    .transpose([1, 0, 2]);
  const kTiles = kvTiles(keys),
    vTiles = kvTiles(values);
  const tileIndex = k.iota([n], 0, "i32");
  const within = k.iota([block], 0, "i32");
  const rows = [b, kvHeads, g, block] as const;
  const start = { max: k.full([...rows, 1], MASKED_SCORE, acc), sum: k.zeros([...rows, 1], acc), out: k.zeros([...rows, d], acc) };
  type Running = typeof start;

  /**
   * The running values after one more key tile. `causal`: mask keys after the query (the diagonal tile;
   * tiles below it are visible whole). Masked scores are MASKED_SCORE, as in groupedAttention, so a
   * query that sees no key averages the keys uniformly; the keys that only pad the sequence to whole
   * tiles must not join that average, so they score far lower still.
   */
  const keyTile = (r: Running, qTile: k.Array, qi: k.Array | number, kj: k.Array | number, tiles: k.Array[], causal: boolean): Running => {
    const [kTile, vTile, realTile] = tiles as [k.Array, k.Array, k.Array];
    const scores = k.einsum("bngtd,bnsd->bngts", qTile, kTile).astype(acc);
    const keyPos = within.add(k.mul(kj, block)).reshape([1, block]);
    let visible = realTile.reshape([b, 1, 1, 1, block]);
    if (causal) visible = visible.and(keyPos.lessEqual(within.add(k.mul(qi, block)).reshape([block, 1])).reshape([1, 1, 1, block, block]));
    const hidden = k
      .where(keyPos.less(t), MASKED_SCORE, 2 * MASKED_SCORE)
      .astype(acc)
      .reshape([1, 1, 1, 1, block]);
    const masked = maskedScores(scores, visible, o.scale, hidden);
    // The maximum only keeps exp() in range: the result does not depend on it, so no gradient flows
    // through it (the rescaling factors are constants to autodiff, and the softmax's gradient comes out
    // exact through the sums).
    const max = k.stopGradient(k.maximum(r.max, k.max(masked, -1, { keepDims: true })));
    const rescale = k.exp(k.stopGradient(r.max).sub(max));
    const p = k.exp(masked.sub(max));
    const pv = k.einsum("bngts,bnsd->bngtd", p.astype(q.dtype), vTile).astype(acc);
    return { max, sum: r.sum.mul(rescale).add(p.sum(-1, { keepDims: true })), out: r.out.mul(rescale).add(pv) };
  };

  let tiles: k.Array;
  if (!o.causal) {
    // Every query tile against every key tile: a loop over query tiles, one over key tiles inside it.
    const queryTile = (qi: k.Array, qTile: k.Array): k.Array => {
      const [r] = k.scan(
        (r: Running, [kj, ...kv]: k.Array[]) => [keyTile(r, qTile, qi, kj!, kv, false), null] as const,
        start,
        [tileIndex, kTiles, vTiles, real],
        { name: "attention_key_tile" },
      );
      return r.out.div(r.sum);
    };
    [, tiles] = k.scan(
      (c: k.Array, [qi, qTile]: k.Array[]) => [c, queryTile(qi!, qTile!)] as const,
      k.scalar(0, "i32"),
      [tileIndex, qTiles],
      {
        name: "attention_query_tile",
      },
    );
  } else {
    // Query tile i sees key tiles 0 … i only: i + 1 steps. A loop's length is static, so query tiles are
    // taken in pairs, i and n-1-i, whose steps add up to n + 1 for every pair: a loop over the n/2 pairs,
    // and inside it a loop of n + 1 steps, step s being (tile i, key tile s) for s ≤ i and (tile n-1-i,
    // key tile s-i-1) after. Every step is below or on the diagonal, so the work is the causal half. The
    // key tiles are read by index (one set of operands for the whole loop, whose gradient the backward
    // pass accumulates once).
    const half = n / 2;
    const pair = k.iota([half], 0, "i32");
    const mirror = (x: k.Array) =>
      k.take(
        x,
        k
          .iota([half], 0, "i32")
          .mul(-1)
          .add(n - 1),
        0,
      );
    const pick = (x: k.Array, i: k.Array) => k.take(x, i.reshape([1]), 0).squeeze(0);
    const choose = (sel: k.Array, x: Running, y: Running): Running => ({
      max: k.where(sel, x.max, y.max),
      sum: k.where(sel, x.sum, y.sum),
      out: k.where(sel, x.out, y.out),
    });
    // A query that sees no key at all averages every key in the whole-matrix softmax, the tiles after
    // its own included: their values' sums and counts, added where that happened.
    const tileSums = vTiles.astype(acc).sum(3); // [n, b, kvHeads, d]
    const later = k
      .iota([n, n], 1, "i32")
      .greater(k.iota([n, n], 0, "i32"))
      .astype(acc);
    const afterSums = k.einsum("jk,kbnd->jbnd", later, tileSums);
    const afterCounts = k.maximum(k.iota([n], 0, "i32").add(1).mul(-block).add(t), 0).astype(acc);
    const finish = (r: Running, qi: k.Array): k.Array => {
      const blind = r.max.lessEqual(MASKED_SCORE);
      const sum = k.where(blind, r.sum.add(pick(afterCounts, qi)), r.sum);
      const out = k.where(blind, r.out.add(pick(afterSums, qi).reshape([b, kvHeads, 1, 1, d])), r.out);
      return out.div(sum);
    };
    const pairOfTiles = (i: k.Array, qLow: k.Array, qHigh: k.Array): [k.Array, k.Array] => {
      const j = i.mul(-1).add(n - 1);
      const [r] = k.scan(
        (r: { low: Running; high: Running }, s: k.Array) => {
          const low = s.lessEqual(i);
          const qi = k.where(low, i, j),
            kj = k.where(low, s, s.sub(i).sub(1));
          const next = keyTile(
            choose(low, r.low, r.high),
            k.where(low, qLow, qHigh),
            qi,
            kj,
            [pick(kTiles, kj), pick(vTiles, kj), pick(real, kj)],
            true,
          );
          return [{ low: choose(low, next, r.low), high: choose(low, r.high, next) }, null] as const;
        },
        { low: start, high: start },
        k.iota([n + 1], 0, "i32"),
        { name: "attention_key_tile" },
      );
      return [finish(r.low, i), finish(r.high, j)];
    };
    const [, [low, high]] = k.scan(
      (c: k.Array, [i, qLow, qHigh]: k.Array[]) => [c, pairOfTiles(i!, qLow!, qHigh!)] as const,
      k.scalar(0, "i32"),
      [pair, k.slice(qTiles, [0, 0, 0, 0, 0, 0], [half, b, kvHeads, g, block, d]), mirror(qTiles)],
      { name: "attention_query_tiles" },
    );
    tiles = k.concat(
      [
        low,
        k.take(
          high,
          k
            .iota([half], 0, "i32")
            .mul(-1)
            .add(half - 1),
          0,
        ),
      ],
      0,
    );
  }
  // [n, batch, kvHeads, groups, block, d] → [batch, t, heads · d]
  return tiles
    .transpose([1, 0, 4, 2, 3, 5])
    .reshape([b, padded, heads * d])
    .slice([0, 0, 0], [b, t, heads * d])
    .astype(q.dtype);
}

/** A decoder layer's attention: queries, keys and values of one layer (its index, or the scan's counter). */
export type CausalAttend = (q: k.Array, keys: k.Array, values: k.Array, layer: number | k.Array) => k.Array;

/** The attention probabilities' dropout of a decoder: its rate and each layer's dropout site. */
export interface AttentionDropout {
  sites: DropoutSites;
  rate: number;
  site: (layer: number | k.Array) => number | k.Array;
}

/**
 * A decoder's causal self-attention over `t` tokens: blockwise where the config sets a block size and
 * the sequence is longer (its config refuses attention dropout, which the tiles do not draw), else over
 * the whole causal visibility with the probabilities' dropout.
 */
export function causalSelfAttention(
  attentionMask: k.Array,
  t: number,
  scale: number,
  blockSize: number | null,
  dropout: AttentionDropout,
): CausalAttend {
  if (blockSize !== null && t > blockSize)
    return (q, keys, values) => blockwiseAttention(q, keys, values, attentionMask, { blockSize, causal: true, scale });
  const visible = causalVisibility(attentionMask);
  return (q, keys, values, i) =>
    groupedAttention(q, keys, values, visible, scale, { sites: dropout.sites, rate: dropout.rate, site: dropout.site(i) });
}
