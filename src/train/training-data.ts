// The data of a training run, opened for a Trainer: the training shards (shuffled, repeated) and the
// evaluation shards (once, in order) at the run's global batch, checked before anything compiles: made
// with the run's tokenizer, and every shard read through (framing, checksums, the count in its name), so
// that damage stops the run now, not hours in.
import { openDataset, type TFRecordDataset } from "../data/pipeline/dataset.js";
import { checkDataTokenizer } from "../data/prepare/manifest.js";
import type { TokenBatch } from "../data/batch.js";

/** Settings of openTrainingData. */
export interface TrainingDataSettings {
  /** The training shards (files, globs or gs:// paths). */
  train: string[];
  /** The evaluation shards, if any. */
  eval?: string[] | undefined;
  /** Tokens per record. */
  maxLength: number;
  /** Rows of one optimizer step over every replica of every process. */
  globalBatch: number;
  /** Shuffles the training shards. */
  seed: number;
  shuffleBuffer: number;
  /** Skip records that fail to read (counted) instead of stopping. */
  skipBadRecords: boolean;
  /** The tokenizer the shards must have been made with. */
  tokenizerDir: string;
  /** Where the line saying what the check found goes (`checked N shards (X MB) in S s`). */
  notice: (line: string) => void;
}

/** The opened data and the number of training records found by the check. */
export interface TrainingData {
  train: TFRecordDataset<TokenBatch>;
  eval: TFRecordDataset<TokenBatch> | undefined;
  trainRecords: number;
}

export async function openTrainingData(s: TrainingDataSettings): Promise<TrainingData> {
  const common = { maxLength: s.maxLength, batchSize: s.globalBatch, ignoreErrors: s.skipBadRecords };
  const train = await openDataset({
    files: s.train,
    ...common,
    shuffle: true,
    seed: s.seed,
    epochs: Infinity,
    shuffleBuffer: s.shuffleBuffer,
  });
  const evalData = s.eval ? await openDataset({ files: s.eval, ...common, shuffle: false, epochs: 1 }) : undefined;
  for (const data of [train, evalData]) if (data) await checkDataTokenizer(data.files, s.tokenizerDir);
  const t = await train.checkShards();
  const e = evalData ? await evalData.checkShards() : undefined;
  const files = t.files + (e?.files ?? 0);
  const mb = (t.bytes + (e?.bytes ?? 0)) / 1e6;
  const skipped = t.skipped + (e?.skipped ?? 0);
  s.notice(
    `checked ${files} shards (${mb.toFixed(1)} MB) in ${(t.seconds + (e?.seconds ?? 0)).toFixed(2)} s` +
      (skipped ? `, ${skipped} bad records to skip` : ""),
  );
  return { train, eval: evalData, trainRecords: t.records };
}

/** What each dataset skipped as bad records over the run, as lines (`training data: …`); none when nothing was. */
export function skippedRecordLines(data: TrainingData): string[] {
  const lines: string[] = [];
  for (const [name, d] of [
    ["training", data.train],
    ["evaluation", data.eval],
  ] as const) {
    const summary = d?.skipped.summary();
    if (summary) lines.push(`${name} data: ${summary}`);
  }
  return lines;
}
