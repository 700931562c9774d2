// This process's share of a global batch when training runs as several processes: the rows its replicas
// would get in the one-process run with as many replicas (process p of P takes the p-th contiguous
// P-th of the rows), and the epoch-wide index of its first example. Every process reads the same
// global batches in the same order (the same files, shuffle and seed), so the global batch, the
// example order and the masking and dropout (drawn from the global example index) equal that run's.
import type { TrainBatch } from "./batch-source.js";
import type { ProcessGroup } from "../distribute/multi-process.js";

export function processRows<I extends { exampleOffset: number }>(
  batch: TrainBatch,
  info: I,
  group: Pick<ProcessGroup, "rank" | "size">,
): { batch: TrainBatch; info: I } {
  const [rows, length] = batch.shape;
  if (rows % group.size !== 0) throw new Error(`a global batch of ${rows} rows does not split evenly over ${group.size} processes`);
  const per = rows / group.size,
    from = group.rank * per * length,
    to = from + per * length;
  return {
    batch: {
      inputIds: batch.inputIds.subarray(from, to),
      attentionMask: batch.attentionMask.subarray(from, to),
      shape: [per, length],
      ...(batch.tokenTypeIds ? { tokenTypeIds: batch.tokenTypeIds.subarray(from, to) } : {}),
      ...(batch.labels ? { labels: batch.labels.subarray(group.rank * per, (group.rank + 1) * per) } : {}),
    },
    info: { ...info, exampleOffset: info.exampleOffset + group.rank * per },
  };
}
