// The batch layout the data layer hands to training: row-major int32 arrays, one row per example.

/** A batch of tokenized examples as flat typed arrays (what openDataset yields). */
export interface TokenBatch {
  /** Token ids, [batch * maxLength]. */
  inputIds: Int32Array;
  /** 1 for real tokens, 0 for padding, [batch * maxLength]. */
  attentionMask: Int32Array;
  /** [batch, maxLength]. */
  shape: [number, number];
}

/** A TokenBatch with masked-LM labels. */
export interface MaskedBatch extends TokenBatch {
  /** The original token where a position was selected for prediction, -100 elsewhere. */
  labels: Int32Array;
}

/** The label value of positions that are not predicted (ignored by the loss). */
export const IGNORE_LABEL = -100;
