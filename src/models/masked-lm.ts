// What every masked language model offers the trainer and the pipelines: init, the encoder's hidden
// states, the vocabulary head, and the MLM objective computed only where labels are set.
import * as k from "../core/index.js";
import type { MlmConfig } from "./config.js";
import { accumulationDtype } from "../nn/layers.js";
import type { LayerLoop } from "./transformer-encoder.js";
import type { LanguageModel, Params } from "./language-model.js";

export type { Params };

/** Options of a masked LM's forward pass: dropout and the batch's place in the stream. */
export interface ForwardOptions {
  /** PRNG key for dropout; null (default) runs without dropout (evaluation, inference). */
  dropoutKey?: k.Array | null;
  /** Global index of the batch's first example (a replica's or micro-batch's share), for dropout's random stream. */
  exampleOffset?: number | k.Array;
  /** Activation dtype ("f32" default; "bf16"/"f16" for mixed precision — weights are cast on use). */
  dtype?: k.DType;
  /** The layer stack unrolled (default) or as one loop (see LayerLoop in encoder.ts). */
  layerLoop?: LayerLoop;
  /** Segment of each token [batch, seq] (token_type_ids: 1 for a pair's second text); default 0 everywhere. */
  tokenTypeIds?: k.Array;
  /**
   * Only the first token's final hidden state is wanted ([CLS], <s>: a classifier's pooler reads nothing
   * else): the last layer then queries from that row alone and `hidden` is [batch, 1, hidden], the same
   * values as the full pass's first row (the other rows still serve as keys and values). Dropout inside
   * that layer draws for the rows it computes.
   */
  firstTokenOnly?: boolean;
}

/**
 * How an encoder's positions start: transformers' normal(0, initializer_range) table, sinusoids of that
 * scale, or "local-attention": sinusoids whose fastest pairs turn a quarter to three quarters of a turn
 * per position, with the first layer's heads attending to fixed neighbours (see local-attention-init.ts).
 */
export type PositionInit = "normal" | "sinusoidal" | "local-attention";
/** Every way a masked LM's position embeddings can start. */
export const POSITION_INITS: readonly PositionInit[] = ["normal", "sinusoidal", "local-attention"];

/** How a masked LM's parameters start; the architecture and the checkpoint's parameters are the same either way. */
export interface MaskedLMInit {
  /**
   * "normal" (default) as transformers initializes; "sinusoidal" starts the absolute position table from
   * Vaswani et al.'s sinusoids (see sinusoidalInit): on SOTU, eval masked accuracy 8.5% after 200 steps
   * against 5.3% from the normal table. "local-attention" also starts the first layer's heads looking at
   * the tokens 1, 2, … to either side: on SOTU (mlm-mini, 1,000 steps of 16 × 128) eval masked accuracy
   * 27.2% against 13.6%, where the other inits leave [MASK] positions at the most frequent piece.
   */
  positionInit?: PositionInit;
}

/** An encoder with a masked-token head (RoBERTa, BERT): hidden states and logits over the vocabulary. */
export interface MaskedLanguageModel<P extends object = Params> extends LanguageModel<P> {
  readonly config: MlmConfig;
  /** Final hidden states [batch, seq, hidden]. */
  hidden(params: P, inputIds: k.Array, attentionMask: k.Array, opts?: ForwardOptions): k.Array;
  /** Vocabulary logits [..., vocab] for hidden rows [..., hidden] (decoder tied to the word embeddings). */
  lmHead(params: P, hidden: k.Array): k.Array;
}

/** A masked LM's loss and top-1 accuracy over the labelled positions. */
export interface MlmOutputs {
  loss: k.Array;
  /** Correct top-1 predictions among the counted (labelled) positions. */
  correct: k.Array;
  /** Number of labelled positions (those the loss counts). */
  count: k.Array;
  /** Labelled positions beyond `capacity`, left out of the loss and accuracy (0 when none were). */
  dropped: k.Array;
}

/**
 * Cross-entropy and masked-token accuracy over positions whose label is not -100. With `capacity`, the
 * vocabulary head runs only on the first `capacity` labelled positions of the batch (a static-size
 * gather, XLA rule 2), which is most of a small model's compute saved: the loss is exactly the one over
 * all positions whenever at most `capacity` positions are labelled. maskCapacity sizes it 6 standard
 * deviations above the expected count; beyond it (p < 1e-9 per batch) the extra positions do not count,
 * and `dropped` says how many there were.
 */
export function maskedLmLoss(model: MaskedLanguageModel, params: Params, hidden: k.Array, labels: k.Array, capacity?: number): MlmOutputs {
  const h = hidden.shape[hidden.ndim - 1]!;
  let rows = hidden.reshape([-1, h]);
  let lab = labels.reshape([-1]);
  let dropped = k.scalar(0);
  if (capacity !== undefined && capacity < lab.size) {
    const counted = lab.notEqual(-100);
    const labelled = counted.astype("i32").sum();
    dropped = k.maximum(labelled.sub(capacity), 0).astype("f32");
    const positions = k.nonzero(counted, { size: capacity, fillValue: 0 });
    const valid = k.iota([capacity], 0, "i32").less(labelled);
    rows = k.take(rows, positions, 0);
    lab = k.where(valid, k.take(lab, positions, 0), -100);
  }
  const head = model.lmHead(params, rows);
  const logits = head.astype(accumulationDtype(head.dtype));
  const loss = k.crossEntropy(logits, lab);
  const counted = lab.notEqual(-100);
  const hit = k.labelIsTop(logits, lab);
  return { loss, correct: hit.astype("f32").sum(), count: counted.astype("f32").sum(), dropped };
}

/**
 * How many positions the vocabulary head needs for a batch of `tokens` tokens at masking probability p:
 * mean + 6 standard deviations of the binomial count, rounded up to a multiple of 64 (never more than tokens).
 * A batch labels more positions with probability below 1e-9 (3·10^-11 for 32 × 128 tokens at p = 0.15, the
 * exact binomial tail), and the head's rows are work torch's labelled-rows head does not do: 768 rows for
 * the 614 expected there, where 8 deviations made 832.
 */
export function maskCapacity(tokens: number, p: number): number {
  const mean = tokens * p,
    sd = Math.sqrt(tokens * p * (1 - p));
  return Math.min(tokens, Math.ceil((mean + 6 * sd + 1) / 64) * 64);
}

export type { MlmConfig };
