// `npm run bench -- read [--batch-size N] [--epochs N] [--repeats N]`: records/s parsed and batched by
// the streaming dataset from local shards of the SOTU corpus (max-length 128), in training order
// (shuffled files, interleaved reads, shuffle buffer). Also reports evaluation order and training
// order with MLM masking.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { prepareDataset } from "../src/data/prepare/prepare.js";
import { openDataset, type DatasetOptions } from "../src/data/pipeline/dataset.js";
import { maskingMap } from "../src/data/mlm/mask.js";
import { openEncoder } from "../src/data/prepare/text-encoder.js";
import { makeTestCorpus } from "../test/helpers/sotu-slice.js";

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { "batch-size": { type: "string" }, epochs: { type: "string" }, repeats: { type: "string" } },
  });
  const batchSize = Number(values["batch-size"] ?? 256);
  const epochs = Number(values.epochs ?? 8);
  const repeats = Number(values.repeats ?? 5);
  const fixture = await makeTestCorpus(Infinity, 8000);
  const shards = join(fixture.dir, "shards");
  await prepareDataset({ tokenizer: fixture.tokenizerDir, inputs: [fixture.corpus], out: shards, maxLength: 128, progress: null });
  const encoder = await openEncoder(fixture.tokenizerDir);
  const base: DatasetOptions = { files: join(shards, "train"), maxLength: 128, batchSize, epochs, seed: 1 };

  const measure = async (options: DatasetOptions, masked: boolean): Promise<number> => {
    const rates: number[] = [];
    for (let r = 0; r < repeats; r++) {
      const ds = await openDataset(options);
      const source = masked
        ? ds.map(maskingMap({ maskTokenId: encoder.maskId!, vocabSize: encoder.vocabSize, specialIds: encoder.specialIds, seed: 1 }))
        : ds;
      const start = performance.now();
      let records = 0;
      for await (const batch of source) records += batch.shape[0];
      rates.push(records / ((performance.now() - start) / 1000));
    }
    return Math.round(rates.sort((a, b) => a - b)[Math.floor(rates.length / 2)]!);
  };

  const train = await measure(base, false);
  const evaluation = await measure({ ...base, shuffle: false }, false);
  const masked = await measure(base, true);
  const ds = await openDataset(base);
  console.log(
    JSON.stringify({
      bench: "read",
      records_per_s: train,
      records_per_s_eval_order: evaluation,
      records_per_s_with_masking: masked,
      records_per_epoch: ds.numRecords,
      files: ds.files.length,
      batch_size: batchSize,
      epochs,
      max_length: 128,
    }),
  );
}
