// The quickstart's token shards read back: the training split shuffled (seed 42) and read as often as
// the steps need, the validation split in order. The SOTU jobs and the classify job's pretraining share it.
import { join } from "node:path";
import { openDataset } from "../data/pipeline/dataset.js";

export async function openQuickstartShards(shards: string, maxLength: number, batchSize: number) {
  const common = { maxLength, batchSize };
  return {
    train: await openDataset({
      files: join(shards, "train"),
      ...common,
      shuffle: true,
      seed: 42,
      epochs: Infinity,
      shuffleBuffer: 2 ** 14,
    }),
    eval: await openDataset({ files: join(shards, "validation"), ...common, shuffle: false }),
  };
}
