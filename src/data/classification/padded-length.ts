// Padded lengths: a record of n tokens is batched at the next multiple of `multiple`, so a model sees at
// most ceil(maxLength / multiple) distinct sequence lengths, each one compiled program (XLA compiles
// one per input shape; padding every batch to maxLength instead wastes the compute of the padding).

export function paddedLength(tokens: number, multiple: number): number {
  return Math.max(1, Math.ceil(tokens / multiple)) * multiple;
}

/** The most distinct padded lengths records of at most maxLength tokens can fall in. */
export function paddedLengthBound(maxLength: number, multiple: number): number {
  return Math.ceil(maxLength / multiple);
}
