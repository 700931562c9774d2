// `npm run bench -- classification [--batch-size N] [--max-length N]`: classification data on the SOTU
// corpus's sentences (labelled by the speech's half of the corpus): prepare's MB/s, then for each
// padToMultipleOf the batch shapes the length-bucketing stream gives, the share of padding in its
// batches (padded rows of partial batches included) and its records/s; padToMultipleOf = maxLength is
// padding every batch to maxLength, for comparison.
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { prepareClassificationDataset } from "../src/data/classification/prepare.js";
import { openClassificationDataset } from "../src/data/pipeline/classification-dataset.js";
import { makeTestCorpus, sentenceCorpus, sotuSlice } from "../test/helpers/sotu-slice.js";

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { "batch-size": { type: "string" }, "max-length": { type: "string" } } });
  const batchSize = Number(values["batch-size"] ?? 32);
  const maxLength = Number(values["max-length"] ?? 128);
  const fixture = await makeTestCorpus(10, 8000);
  const speeches = sotuSlice(Infinity).lines;
  const rows = speeches.flatMap((speech, i) =>
    sentenceCorpus([speech])
      .trim()
      .split("\n")
      .map((text) => ({ text, label: i < speeches.length / 2 ? "earlier" : "later" })),
  );
  const dir = join(fixture.dir, "classification");
  mkdirSync(dir, { recursive: true });
  const input = join(dir, "sentences.jsonl");
  writeFileSync(input, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const prepared = await prepareClassificationDataset({
    input,
    textColumn: "text",
    labelColumn: "label",
    tokenizer: fixture.tokenizerDir,
    out: join(dir, "out"),
    maxLength,
  });
  const mb = statSync(input).size / 1e6;
  console.log(
    JSON.stringify({
      bench: "classification",
      step: "prepare",
      records: prepared.records,
      mb: Number(mb.toFixed(1)),
      seconds: Number(prepared.seconds.toFixed(2)),
      mb_per_s: Number((mb / prepared.seconds).toFixed(1)),
      mean_tokens: Number(prepared.lengths.mean.toFixed(1)),
    }),
  );
  for (const m of [8, 16, 32, 64, maxLength]) {
    const ds = await openClassificationDataset({ files: prepared.dir, batchSize, padToMultipleOf: m, seed: 1 });
    const shapes = new Set<number>();
    let positions = 0;
    let real = 0;
    const start = performance.now();
    for await (const b of ds) {
      shapes.add(b.shape[1]);
      positions += b.attentionMask.length;
      for (const v of b.attentionMask) real += v;
    }
    const seconds = (performance.now() - start) / 1000;
    console.log(
      JSON.stringify({
        bench: "classification",
        pad_to_multiple_of: m,
        shapes: shapes.size,
        shape_bound: ds.paddedLengths.length,
        padding_share: Number((1 - real / positions).toFixed(3)),
        positions,
        records_per_s: Math.round(ds.numRecords / seconds),
      }),
    );
  }
}
