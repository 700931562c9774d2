// The streaming input pipeline: TFRecord files → shuffled file order (seeded, per epoch) →
// interleaved reads of several files → shuffle buffer (seeded) → parse fixed-length features →
// batch → map → prefetch → repeat for `epochs`.
//
// Deterministic for a seed, and resumable: an iterator's `state()` is a small JSON value (the epoch
// and how many of its batches were consumed); an iterator created from it replays the epoch's record
// order without parsing and continues exactly where the saved one stopped.
import type { TokenBatch } from "../batch.js";
import { checkOptions } from "../../core/check-options.js";
import { OptionError } from "../../core/option-error.js";
import type { Compression } from "../tfrecord/files.js";
import { checkPreparedInputs, processShare, recordCounts, resolveFiles } from "./files.js";
import { SkippedRecords } from "./skipped-records.js";
import { checkShards, type ShardCheck } from "../shard-check.js";
import { BatchStream, type BatchStreamOptions, type PositionedBatch } from "./batch-stream.js";

/** Options of openDataset: the files, the sequence length, batching, shuffling, epochs, and this process's share. */
export interface DatasetOptions {
  /** A directory (its *.tfrecord and *.tfrecord.gz files), a glob, a file, or a list of those; local or gs://. */
  files: string | string[];
  /** Length of the input_ids and attention_mask features. */
  maxLength: number;
  /** Examples per batch (the global batch of this process). */
  batchSize: number;
  /** Shuffle files and records (training). Default true; false reads in order (evaluation). */
  shuffle?: boolean;
  /** Seed of all shuffling (an unsigned 32-bit integer). Default 0. */
  seed?: number;
  /** Records in the shuffle buffer. Default 2^18. */
  shuffleBuffer?: number;
  /** Drop an epoch's last batch when it is smaller than batchSize. Default true. */
  dropRemainder?: boolean;
  /** Epochs to produce; Infinity repeats forever. Default 1. */
  epochs?: number;
  /** Files read at once, their records interleaved. Default min(8, files). */
  cycleLength?: number;
  /** This process's index among `processCount`; each reads every processCount-th file. */
  processIndex?: number;
  processCount?: number;
  compression?: Compression;
  /**
   * Skip damaged records and records that do not parse (like tf.data's ignore_errors), reporting each
   * to onSkip with the records it cost; `skipped` tallies them by file.
   */
  ignoreErrors?: boolean;
  onSkip?: (error: Error, records: number) => void;
  /** Batches prepared ahead of the consumer. Default 2. */
  prefetch?: number;
  featureNames?: { inputIds: string; attentionMask: string };
}

/** Where an iterator stands; JSON-serializable. */
export interface DatasetState {
  version: 1;
  /** The settings that determine the order of batches; a state only resumes a matching dataset. */
  settings: Record<string, unknown>;
  /** Epoch of the next batch. */
  epoch: number;
  /** Batches of that epoch already consumed. */
  batchInEpoch: number;
}

/** What a map function learns about the batch it transforms. */
export interface BatchInfo {
  epoch: number;
  /** Index of the batch within its epoch. */
  batchIndex: number;
  /** Index within the epoch of the batch's first example (batchIndex * batchSize). */
  exampleOffset: number;
}

type MapFn = (value: unknown, info: BatchInfo) => unknown;

const DATASET_OPTIONS = [
  "files",
  "maxLength",
  "batchSize",
  "shuffle",
  "seed",
  "shuffleBuffer",
  "dropRemainder",
  "epochs",
  "cycleLength",
  "processIndex",
  "processCount",
  "compression",
  "ignoreErrors",
  "onSkip",
  "prefetch",
  "featureNames",
] as const satisfies readonly (keyof DatasetOptions)[];

interface Setup {
  stream: BatchStreamOptions;
  prefetch: number;
  settings: Record<string, unknown>;
  numRecords: number;
  skipped: SkippedRecords;
}

/** A stream of batches read from TFRecord shards, transformed by map(); iterate it with for await. */
export class TFRecordDataset<T> implements AsyncIterable<T> {
  private constructor(
    private readonly setup: Setup,
    private readonly maps: readonly MapFn[],
  ) {}

  /** Finds the files, takes this process's share and counts its records. */
  static async open(options: DatasetOptions): Promise<TFRecordDataset<TokenBatch>> {
    checkOptions("openDataset", options, DATASET_OPTIONS, {
      booleans: ["shuffle", "dropRemainder", "ignoreErrors"],
      choices: { compression: ["none", "gzip", undefined] },
    });
    if (options?.files === undefined)
      throw new OptionError({
        where: "openDataset",
        option: "files",
        value: undefined,
        why: "is required",
        fix: 'Pass the shards: a directory, a glob, a file or a list of them, e.g. files: "data/train"',
      });
    const o = {
      shuffle: true,
      seed: 0,
      shuffleBuffer: 2 ** 18,
      dropRemainder: true,
      epochs: 1,
      processIndex: 0,
      processCount: 1,
      ignoreErrors: false,
      prefetch: 2,
      featureNames: { inputIds: "input_ids", attentionMask: "attention_mask" },
      ...options,
    };
    for (const [name, v] of [
      ["maxLength", o.maxLength],
      ["batchSize", o.batchSize],
      ["shuffleBuffer", o.shuffleBuffer],
    ] as const) {
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${v}`);
    }
    if (!(o.epochs === Infinity || (Number.isInteger(o.epochs) && o.epochs >= 1)))
      throw new RangeError(`epochs must be a positive integer or Infinity, got ${o.epochs}`);
    if (!Number.isInteger(o.seed)) throw new RangeError(`seed must be an integer, got ${o.seed}`);
    if (!Number.isInteger(o.prefetch) || o.prefetch < 0) throw new RangeError(`prefetch must be a non-negative integer, got ${o.prefetch}`);
    const all = await resolveFiles(o.files);
    await checkPreparedInputs(o.files, all);
    const files = processShare(all, o.processIndex, o.processCount);
    // Not tied to the machine's cores: the batch order must not change when a run moves machines.
    const cycleLength = o.cycleLength ?? Math.min(8, files.length);
    if (!Number.isInteger(cycleLength) || cycleLength < 1)
      throw new RangeError(`cycleLength must be a positive integer, got ${cycleLength}`);
    const counts = await recordCounts(files, o.compression);
    const skipped = new SkippedRecords();
    const stream: BatchStreamOptions = {
      files,
      maxLength: o.maxLength,
      batchSize: o.batchSize,
      dropRemainder: o.dropRemainder,
      shuffle: o.shuffle,
      shuffleBuffer: o.shuffleBuffer,
      seed: o.seed,
      epochs: o.epochs,
      cycleLength,
      ignoreErrors: o.ignoreErrors,
      featureNames: o.featureNames,
      ...(o.compression ? { compression: o.compression } : {}),
      onSkip: (error, records) => {
        skipped.add(error.file, error.offset, records, error.problem);
        o.onSkip?.(error, records);
      },
    };
    const settings = {
      // Names, not full paths, so a run can resume from a copy of the data in another place.
      files: files.map((f) => f.slice(f.lastIndexOf("/") + 1)),
      maxLength: o.maxLength,
      batchSize: o.batchSize,
      dropRemainder: o.dropRemainder,
      shuffle: o.shuffle,
      shuffleBuffer: o.shuffle ? o.shuffleBuffer : null,
      seed: o.shuffle ? o.seed : null,
      cycleLength,
      ignoreErrors: o.ignoreErrors,
      featureNames: o.featureNames,
    };
    const numRecords = counts.reduce((a, b) => a + b, 0);
    return new TFRecordDataset<TokenBatch>({ stream, prefetch: o.prefetch, settings, numRecords, skipped }, []);
  }

  /** This process's files. */
  get files(): readonly string[] {
    return this.setup.stream.files;
  }

  /** Records per epoch for this process (from file names, or counted where names do not say). */
  get numRecords(): number {
    return this.setup.numRecords;
  }

  /** Records skipped as bad so far, by file (with ignoreErrors); its summary() is the end-of-run report. */
  get skipped(): SkippedRecords {
    return this.setup.skipped;
  }

  /**
   * Reads every file of this process through once, checking each record's length and both checksums
   * and each shard's record count against its name, so that a damaged input fails before the first
   * step rather than hours into a run. Returns the true record total with the time it took; with
   * ignoreErrors, bad records are skipped (and tallied in `skipped`) instead.
   */
  async checkShards(options: { concurrency?: number } = {}): Promise<ShardCheck> {
    const { compression, ignoreErrors, onSkip } = this.setup.stream;
    // When skipping bad records, the pass finds and tallies them all up front instead of failing.
    return checkShards(this.files, { ...(compression ? { compression } : {}), ignoreErrors, ...(onSkip ? { onSkip } : {}), ...options });
  }

  /** Tokens per record (the input_ids and attention_mask length every batch has). */
  get maxLength(): number {
    return this.setup.stream.maxLength;
  }

  /** Examples per batch. */
  get batchSize(): number {
    return this.setup.stream.batchSize;
  }

  /** Batches per epoch (fewer if ignoreErrors skips records). */
  get batchesPerEpoch(): number {
    const { batchSize, dropRemainder } = this.setup.stream;
    return dropRemainder ? Math.floor(this.numRecords / batchSize) : Math.ceil(this.numRecords / batchSize);
  }

  /** A dataset whose batches are `fn(batch, info)`; maps run ahead of the consumer, with prefetch. */
  map<U>(fn: (value: T, info: BatchInfo) => U | Promise<U>): TFRecordDataset<Awaited<U>> {
    return new TFRecordDataset<Awaited<U>>(this.setup, [...this.maps, fn as MapFn]);
  }

  /** Epochs this dataset produces (Infinity: it repeats forever). */
  get epochs(): number {
    return this.setup.stream.epochs;
  }

  /**
   * The same data for `epochs` passes (Infinity: forever). Each epoch's order is the one this dataset
   * gives that epoch, and a saved state resumes either (the epoch count is not one of its settings).
   */
  withEpochs(epochs: number): TFRecordDataset<T> {
    if (!(epochs === Infinity || (Number.isInteger(epochs) && epochs >= 1)))
      throw new RangeError(`epochs must be a positive integer or Infinity, got ${epochs}`);
    return new TFRecordDataset<T>({ ...this.setup, stream: { ...this.setup.stream, epochs } }, this.maps);
  }

  /** An iterator from the start, or from a saved `state()`. */
  iterator(state?: DatasetState): DatasetIterator<T> {
    let epoch = 0;
    let batchInEpoch = 0;
    if (state) {
      checkState(state, this.setup.settings);
      ({ epoch, batchInEpoch } = state);
    }
    return new DatasetIterator<T>(this.setup, this.maps, epoch, batchInEpoch);
  }

  [Symbol.asyncIterator](): DatasetIterator<T> {
    return this.iterator();
  }
}

function checkState(state: DatasetState, settings: Record<string, unknown>): void {
  if (state?.version !== 1 || !Number.isInteger(state.epoch) || !Number.isInteger(state.batchInEpoch)) {
    throw new Error("not a saved dataset state: expected the JSON value an iterator's state() returned");
  }
  const differing = Object.keys(settings).filter((k) => JSON.stringify(state.settings[k]) !== JSON.stringify(settings[k]));
  if (differing.length > 0) {
    throw new Error(
      `the saved dataset state belongs to a dataset with different ${differing.join(", ")} ` +
        `(saved ${differing.map((k) => `${k}=${JSON.stringify(state.settings[k])}`).join(", ")}); ` +
        `open the dataset with the settings it was saved with`,
    );
  }
}

type Item = { batch: PositionedBatch; value: unknown; lastInEpoch: boolean } | { error: unknown } | { done: true };

/** An iterator over a TFRecordDataset's batches, prefetching in the background; it records the data position for checkpoints. */
export class DatasetIterator<T> implements AsyncIterableIterator<T> {
  private readonly stream: BatchStream;
  private readonly queue: Item[] = [];
  private readonly capacity: number;
  private wakeConsumer: (() => void) | undefined;
  private wakeProducer: (() => void) | undefined;
  private started = false;
  private stopped = false;
  private epoch: number;
  private batchInEpoch: number;

  constructor(
    private readonly setup: Setup,
    private readonly maps: readonly MapFn[],
    epoch: number,
    batchInEpoch: number,
  ) {
    this.stream = new BatchStream(setup.stream, epoch);
    this.capacity = Math.max(1, setup.prefetch);
    this.epoch = epoch;
    this.batchInEpoch = batchInEpoch;
  }

  /** The position after the last batch returned; pass it to `dataset.iterator(state)` to continue from there. */
  state(): DatasetState {
    return { version: 1, settings: this.setup.settings, epoch: this.epoch, batchInEpoch: this.batchInEpoch };
  }

  async next(): Promise<IteratorResult<T>> {
    if (!this.started) {
      this.started = true;
      void this.produce();
    }
    while (this.queue.length === 0) {
      if (this.stopped) return { done: true, value: undefined };
      await new Promise<void>((resolve) => (this.wakeConsumer = resolve));
    }
    const item = this.queue[0]!;
    if ("done" in item) return { done: true, value: undefined };
    this.queue.shift();
    this.wakeProducer?.();
    if ("error" in item) {
      this.stopped = true;
      throw item.error;
    }
    // The state moves past the batch only now that the consumer has it.
    if (item.lastInEpoch) {
      this.epoch = item.batch.epoch + 1;
      this.batchInEpoch = 0;
    } else {
      this.epoch = item.batch.epoch;
      this.batchInEpoch = item.batch.batchIndex + 1;
    }
    return { done: false, value: item.value as T };
  }

  /** Stops reading (called by `for await` when the loop is left early). */
  async return(): Promise<IteratorResult<T>> {
    this.stopped = true;
    this.wakeProducer?.();
    this.wakeConsumer?.();
    await this.stream.close();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private push(item: Item): void {
    this.queue.push(item);
    this.wakeConsumer?.();
  }

  /**
   * Builds batches ahead of the consumer. Each batch is held until the next one is known, so that the
   * last batch of an epoch is marked as such and a state saved after it points at the next epoch.
   */
  private async produce(): Promise<void> {
    try {
      if (this.batchInEpoch > 0) await this.stream.skipBatches(this.batchInEpoch);
      let pending = await this.stream.next();
      while (pending && !this.stopped) {
        // A failure while looking ahead is reported after the held batch, where it happened.
        let following: PositionedBatch | null = null;
        let failure: { error: unknown } | undefined;
        try {
          following = await this.stream.next();
        } catch (error) {
          failure = { error };
        }
        const lastInEpoch = !failure && (following === null || following.epoch !== pending.epoch);
        const { epoch, batchIndex } = pending;
        let value: unknown = pending.batch;
        for (const fn of this.maps) value = await fn(value, { epoch, batchIndex, exampleOffset: batchIndex * this.setup.stream.batchSize });
        while (this.queue.length >= this.capacity && !this.stopped) await new Promise<void>((resolve) => (this.wakeProducer = resolve));
        if (this.stopped) break;
        this.push({ batch: pending, value, lastInEpoch });
        if (failure) throw failure.error;
        pending = following;
      }
      this.push({ done: true });
    } catch (error) {
      this.push({ error });
    } finally {
      await this.stream.close();
    }
  }
}

/** Opens a dataset; see DatasetOptions. */
export function openDataset(options: DatasetOptions): Promise<TFRecordDataset<TokenBatch>> {
  return TFRecordDataset.open(options);
}
