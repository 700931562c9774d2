// What every causal (decoder-only) language model offers the trainer and the generation pipeline:
// the hidden states of a whole sequence (training, evaluation), the vocabulary head, and the same
// forward pass over a preallocated key/value cache of fixed shape (prefill and decode are compiled
// programs whose shapes never depend on the data).
import type * as k from "../core/index.js";
import type { BaseModelConfig, LanguageModel, Params } from "./language-model.js";
import type { LayerLoop } from "./transformer-encoder.js";
import type { CachedKeysValues } from "../nn/causal-attention.js";

/** The config.json fields that the trainer and generation read from any causal LM. */
export interface CausalLmConfig extends BaseModelConfig {
  bos_token_id?: number | null;
  eos_token_id?: number | number[] | null;
  pad_token_id?: number | null;
}

/** Options of a causal LM's forward pass: dropout and the batch's place in the stream. */
export interface CausalForwardOptions {
  /** PRNG key for dropout; null (default) runs without dropout. */
  dropoutKey?: k.Array | null;
  /** Global index of the batch's first example, for dropout's random stream. */
  exampleOffset?: number | k.Array;
  /** Activation dtype ("f32" default; "bf16"/"f16" for mixed precision: weights are cast on use). */
  dtype?: k.DType;
  /** The decoder's layer stack unrolled (default) or as one loop. */
  layerLoop?: LayerLoop;
  /** Position of each token [batch, seq] (i32); default 0, 1, …, seq-1 on every row. */
  positionIds?: k.Array;
}

/**
 * Keys and values of every layer: each [batch, kvHeads, capacity, headDim], in the activation dtype;
 * `fresh` rows only between the steps of a forward with deferred writes (CachedForwardOptions).
 */
export interface KvCache {
  layers: CachedKeysValues[];
}

/** Options of forwardCached. */
export interface CachedForwardOptions extends Pick<CausalForwardOptions, "dtype"> {
  /**
   * Append the new keys and values (one token per row) to each layer's `fresh` rows instead of
   * writing them into the cache; attention reads both. The caller writes them (writeCache) after its
   * last step: once per decode call instead of once per step (nn/causal-attention.ts, attendCached).
   */
  deferCacheWrites?: boolean;
}

/** A decoder-only language model (Llama, GPT-2): hidden states, next-token logits, and decoding over a KV cache. */
export interface CausalLanguageModel<P extends object = Params> extends LanguageModel<P> {
  readonly config: CausalLmConfig;
  /** The longest sequence the model has positions for (max_position_embeddings, n_positions). */
  readonly maxLength: number;
  /** Final hidden states [batch, seq, hidden]: causal attention, padded keys (attentionMask 0) masked out. */
  hidden(params: P, inputIds: k.Array, attentionMask: k.Array, opts?: CausalForwardOptions): k.Array;
  /** Vocabulary logits [..., vocab] for hidden rows [..., hidden] (tied or untied, as the config says). */
  lmHead(params: P, hidden: k.Array): k.Array;
  /** An empty cache (zeros) for `batch` rows of `capacity` tokens. */
  initCache(batch: number, capacity: number, dtype?: k.DType): KvCache;
  /**
   * The forward pass of `inputIds` [batch, t] whose keys and values are written into cache slots
   * start … start+t-1 (`start` a number or a traced i32 scalar), at positions `positionIds` [batch, t].
   * `slotMask` [batch, capacity] is 1 for the slots a row may attend to (its real tokens so far,
   * these included); among the new tokens attention is causal. Returns their final hidden states
   * [batch, t, hidden] and the updated cache.
   */
  forwardCached(
    params: P,
    inputIds: k.Array,
    positionIds: k.Array,
    slotMask: k.Array,
    cache: KvCache,
    start: number | k.Array,
    opts?: CachedForwardOptions,
  ): { hidden: k.Array; cache: KvCache };
}
