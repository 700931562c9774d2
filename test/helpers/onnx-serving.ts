// Small pieces shared by the export tests: onnxruntime feeds for a padded batch, and a median timing.
import * as ort from "onnxruntime-node";
import type { PaddedBatch } from "./hf-interop.js";

/** input_ids and attention_mask as int64 tensors, the signature exported models take. */
export function ortFeeds(b: PaddedBatch): Record<string, ort.Tensor> {
  const int64 = (a: Int32Array) => new ort.Tensor("int64", BigInt64Array.from(a, BigInt), b.shape);
  return { input_ids: int64(b.inputIds), attention_mask: int64(b.attentionMask) };
}

/** Median wall time of `runs` calls of `fn` in milliseconds, after one untimed warm-up call. */
export async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return (times[(runs - 1) >> 1]! + times[runs >> 1]!) / 2;
}
