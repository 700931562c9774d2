// Classification records prepared by prepareClassificationDataset, read back as batches grouped by
// length (see length-bucket-stream.ts). The shards' prepare.json supplies what the records alone do not
// say: the maxLength they were cut to, the padding id, the label map and the default padToMultipleOf.
import { checkOptions } from "../../core/check-options.js";
import { OptionError } from "../../core/option-error.js";
import { paddedLengthBound } from "../classification/padded-length.js";
import { parentDir, readManifest } from "../prepare/manifest.js";
import { checkPreparedInputs, recordCounts, resolveFiles } from "./files.js";
import { lengthBucketBatches, type ClassificationBatch, type LengthBucketStreamOptions } from "./length-bucket-stream.js";

/** Options of openClassificationDataset: the shards, batch size, padding multiple, shuffling and seed. */
export interface ClassificationDatasetOptions {
  /** A split directory written by prepareClassificationDataset, a glob, a file, or a list of those. */
  files: string | string[];
  /** Rows per batch (a bucket's last batch of an epoch is padded with empty rows up to it). */
  batchSize: number;
  /** Batches are padded to a multiple of this many tokens. Default: the value the data was prepared with. */
  padToMultipleOf?: number;
  /** Shuffle files and records (training). Default true; false reads the files in order, one at a time (evaluation). */
  shuffle?: boolean;
  /** Seed of all shuffling (an unsigned 32-bit integer). Default 0. */
  seed?: number;
  /** Records in the shuffle buffer. Default 10000. */
  shuffleBuffer?: number;
  /** Epochs to produce. Default 1. */
  epochs?: number;
}

const OPTIONS = [
  "files",
  "batchSize",
  "padToMultipleOf",
  "shuffle",
  "seed",
  "shuffleBuffer",
  "epochs",
] as const satisfies readonly (keyof ClassificationDatasetOptions)[];
const WHERE = "openClassificationDataset";

interface PreparedSettings {
  task?: string;
  maxLength?: number;
  padId?: number;
  padToMultipleOf?: number;
  textPairColumn?: string | null;
  tokenizerSha256?: string;
}

/** Labelled records read back in length-bucketed batches, each padded to a multiple of padToMultipleOf. */
export class ClassificationDataset implements AsyncIterable<ClassificationBatch> {
  private constructor(
    private readonly stream: LengthBucketStreamOptions,
    /** Records per epoch. */
    readonly numRecords: number,
    /** The label of each class id. */
    readonly labels: readonly string[],
    /** Whether the records are text pairs (token type 1 on the second text). */
    readonly pairs: boolean,
    private readonly counted: { promise?: Promise<number> } = {},
  ) {}

  static async open(options: ClassificationDatasetOptions): Promise<ClassificationDataset> {
    checkOptions(WHERE, options, OPTIONS, {
      ints: ["batchSize", "padToMultipleOf", "seed", "shuffleBuffer", "epochs"],
      positive: ["batchSize", "padToMultipleOf", "shuffleBuffer", "epochs"],
      booleans: ["shuffle"],
    });
    if (options?.files === undefined)
      throw new OptionError({
        where: WHERE,
        option: "files",
        value: undefined,
        why: "is required",
        fix: 'Pass the prepared split, e.g. files: "data/train"',
      });
    if (options.batchSize === undefined)
      throw new OptionError({
        where: WHERE,
        option: "batchSize",
        value: undefined,
        why: "is required",
        fix: "Pass batchSize: the rows per batch, e.g. 32",
      });
    const files = await resolveFiles(options.files);
    await checkPreparedInputs(options.files, files);
    const prepared = await preparedSettings(files);
    const padToMultipleOf = options.padToMultipleOf ?? prepared.padToMultipleOf;
    const stream: LengthBucketStreamOptions = {
      files,
      batchSize: options.batchSize,
      padToMultipleOf,
      maxLength: prepared.maxLength,
      padId: prepared.padId,
      shuffle: options.shuffle ?? true,
      shuffleBuffer: options.shuffleBuffer ?? 10_000,
      seed: options.seed ?? 0,
      epochs: options.epochs ?? 1,
      // Unshuffled, files are read one after another, so each bucket's records come in file order.
      cycleLength: (options.shuffle ?? true) ? Math.min(8, files.length) : 1,
    };
    const numRecords = (await recordCounts(files)).reduce((a, b) => a + b, 0);
    return new ClassificationDataset(stream, numRecords, prepared.labels, prepared.pairs);
  }

  get files(): readonly string[] {
    return this.stream.files;
  }

  /** Tokens a record holds at most (the maxLength it was prepared with). */
  get maxLength(): number {
    return this.stream.maxLength;
  }

  get padToMultipleOf(): number {
    return this.stream.padToMultipleOf;
  }

  /** Every length a batch can be padded to: padToMultipleOf, 2·padToMultipleOf, … up to maxLength's. */
  get paddedLengths(): number[] {
    const { maxLength, padToMultipleOf: m } = this.stream;
    return Array.from({ length: paddedLengthBound(maxLength, m) }, (_, i) => (i + 1) * m);
  }

  /** Rows per batch. */
  get batchSize(): number {
    return this.stream.batchSize;
  }

  /** Epochs the batches go through (Infinity: forever). */
  get epochs(): number {
    return this.stream.epochs;
  }

  /** The same data for `epochs` passes (Infinity: forever); each epoch keeps its own order. */
  withEpochs(epochs: number): ClassificationDataset {
    if (!(epochs === Infinity || (Number.isInteger(epochs) && epochs >= 1)))
      throw new OptionError({ where: WHERE, option: "epochs", value: epochs, why: "must be a positive integer or Infinity" });
    return new ClassificationDataset({ ...this.stream, epochs }, this.numRecords, this.labels, this.pairs, this.counted);
  }

  /**
   * What decides the order of the batches (a saved position resumes only data read with the same): file
   * names, batch size, padding multiple and shuffling.
   */
  get orderSettings(): Record<string, unknown> {
    const s = this.stream;
    return {
      files: s.files.map((f) => f.slice(f.lastIndexOf("/") + 1)),
      batchSize: s.batchSize,
      padToMultipleOf: s.padToMultipleOf,
      shuffle: s.shuffle,
      shuffleBuffer: s.shuffle ? s.shuffleBuffer : null,
      seed: s.shuffle ? s.seed : null,
    };
  }

  /** Batches, epoch after epoch (from `firstEpoch`, default 0); each is [batchSize, L] with L one of paddedLengths. */
  batches(firstEpoch = 0): AsyncGenerator<ClassificationBatch> {
    return lengthBucketBatches({ ...this.stream, firstEpoch });
  }

  /**
   * Batches in one epoch: Σ over lengths of ⌈records of that length / batchSize⌉, whatever the order
   * (a bucket emits a batch whenever it fills, and its partial rest at the epoch's end). Reads the data once.
   */
  countBatchesPerEpoch(): Promise<number> {
    // Counted once per dataset (and the copies withEpochs makes): the pass reads every record.
    this.counted.promise ??= (async () => {
      let n = 0;
      for await (const _ of lengthBucketBatches({ ...this.stream, epochs: 1, shuffle: false, cycleLength: 1 })) n++;
      return n;
    })();
    return this.counted.promise;
  }

  [Symbol.asyncIterator](): AsyncIterator<ClassificationBatch> {
    return this.batches();
  }
}

/** Opens prepared classification records; see ClassificationDatasetOptions. */
export function openClassificationDataset(options: ClassificationDatasetOptions): Promise<ClassificationDataset> {
  return ClassificationDataset.open(options);
}

/** The settings every directory of `files` was prepared with; directories that disagree are refused. */
async function preparedSettings(
  files: readonly string[],
): Promise<{ maxLength: number; padId: number; padToMultipleOf: number; labels: string[]; pairs: boolean }> {
  // The first directory's padToMultipleOf is the default; the rest must agree on what the records are.
  let found: { dir: string; key: string; value: ReturnType<typeof settingsOf> & { padToMultipleOf: number } } | undefined;
  for (const dir of new Set(files.map(parentDir))) {
    const manifest = await readManifest(dir);
    const settings = manifest?.settings as PreparedSettings | undefined;
    if (settings?.task !== "classification")
      throw new OptionError({
        where: WHERE,
        option: "files",
        value: dir,
        why: manifest ? "holds records prepared for language modelling, not classification" : "holds no prepare.json",
        fix: "Pass a split directory written by prepareClassificationDataset (kiln data prepare --task classification)",
      });
    const value = settingsOf(settings, manifest as unknown as { labels?: { id2label?: Record<string, string> } });
    const key = JSON.stringify({ ...value, tokenizerSha256: settings.tokenizerSha256 });
    if (found && found.key !== key)
      throw new OptionError({
        where: WHERE,
        option: "files",
        value: dir,
        why: `was prepared with other settings or labels than ${found.dir} (${key} against ${found.key})`,
        fix: "Read together only splits prepared with the same tokenizer, maxLength, label map and pair column",
      });
    found ??= { dir, key, value: { ...value, padToMultipleOf: Number(settings.padToMultipleOf) } };
  }
  return found!.value;
}

function settingsOf(s: PreparedSettings, manifest: { labels?: { id2label?: Record<string, string> } }) {
  const id2label = manifest.labels?.id2label ?? {};
  return {
    maxLength: Number(s.maxLength),
    padId: Number(s.padId),
    labels: Object.keys(id2label)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => id2label[k]!),
    pairs: typeof s.textPairColumn === "string",
  };
}
