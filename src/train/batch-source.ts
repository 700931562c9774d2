// What fit() reads its batches from: token shards (openDataset's TFRecordDataset, one batch length) or
// labelled classification records (openClassificationDataset: length-bucketed batches, each with its
// rows' labels). Both are seen through one interface: batches per epoch, repeats, map, and an iterator
// whose state() a checkpoint saves and a resumed run continues from, batch for batch.
import type { TokenBatch } from "../data/batch.js";
import { ClassificationDataset } from "../data/pipeline/classification-dataset.js";
import type { BatchInfo, DatasetState } from "../data/pipeline/dataset.js";
import { TFRecordDataset } from "../data/pipeline/dataset.js";

/** A batch the Trainer trains on: token rows, and for labelled data each row's label and token types. */
export interface TrainBatch extends TokenBatch {
  /** [rows] class ids; -100 on padding rows (not counted by the loss). */
  labels?: Int32Array;
  /** [rows, length] segment ids (1 on a pair's second text). */
  tokenTypeIds?: Int32Array;
}

/** An iterator over a source's batches that records its position for checkpoints. */
export interface BatchIterator<T> extends AsyncIterableIterator<T> {
  /** The position after the last batch returned; `source.iterator(state)` continues from there. */
  state(): DatasetState;
  return(): Promise<IteratorResult<T>>;
}

/** Batches as fit() reads them (TFRecordDataset has this shape; ClassificationBatches adapts labelled data). */
export interface BatchSource<T> extends AsyncIterable<T> {
  readonly files: readonly string[];
  readonly numRecords: number;
  readonly batchSize: number;
  readonly batchesPerEpoch: number;
  readonly epochs: number;
  /** The longest batch (tokens per row). */
  readonly maxLength: number;
  /** Every length a batch can have: one for token shards, the padded lengths for classification data. */
  readonly batchLengths: readonly number[];
  map<U>(fn: (value: T, info: BatchInfo) => U | Promise<U>): BatchSource<Awaited<U>>;
  withEpochs(epochs: number): BatchSource<T>;
  iterator(state?: DatasetState): BatchIterator<T>;
}

type MapFn = (value: unknown, info: BatchInfo) => unknown;

/** Labelled classification batches as a BatchSource (batches per epoch counted once, when opened). */
export class ClassificationBatches<T = TrainBatch> implements BatchSource<T> {
  private constructor(
    private readonly data: ClassificationDataset,
    readonly batchesPerEpoch: number,
    private readonly maps: readonly MapFn[],
  ) {}

  static async open(data: ClassificationDataset): Promise<ClassificationBatches> {
    return new ClassificationBatches(data, await data.countBatchesPerEpoch(), []);
  }

  get files(): readonly string[] {
    return this.data.files;
  }
  get numRecords(): number {
    return this.data.numRecords;
  }
  get batchSize(): number {
    return this.data.batchSize;
  }
  get epochs(): number {
    return this.data.epochs;
  }
  get maxLength(): number {
    return this.data.paddedLengths.at(-1)!;
  }
  get batchLengths(): readonly number[] {
    return this.data.paddedLengths;
  }

  map<U>(fn: (value: T, info: BatchInfo) => U | Promise<U>): ClassificationBatches<Awaited<U>> {
    return new ClassificationBatches<Awaited<U>>(this.data, this.batchesPerEpoch, [...this.maps, fn as MapFn]);
  }

  withEpochs(epochs: number): ClassificationBatches<T> {
    return new ClassificationBatches<T>(this.data.withEpochs(epochs), this.batchesPerEpoch, this.maps);
  }

  iterator(state?: DatasetState): BatchIterator<T> {
    const settings = this.data.orderSettings;
    if (state) {
      const differing = Object.keys(settings).filter((key) => JSON.stringify(state.settings?.[key]) !== JSON.stringify(settings[key]));
      if (state.version !== 1 || differing.length)
        throw new Error(
          `the saved data position belongs to classification data read with other ${differing.join(", ") || "settings"}: ` +
            `open the data with the settings it was saved with`,
        );
    }
    let epoch = state?.epoch ?? 0,
      batchInEpoch = state?.batchInEpoch ?? 0;
    const { data, maps, batchesPerEpoch } = this;
    const batches = data.batches(epoch);
    let skip = batchInEpoch;
    const it: BatchIterator<T> = {
      state: () => ({ version: 1, settings, epoch, batchInEpoch }),
      async next(): Promise<IteratorResult<T>> {
        for (;;) {
          const r = await batches.next();
          if (r.done) return { done: true, value: undefined };
          // A resumed iterator replays its epoch's order up to where it stopped.
          if (skip > 0 && r.value.epoch === epoch) {
            skip--;
            continue;
          }
          const b = r.value;
          const info: BatchInfo = { epoch: b.epoch, batchIndex: b.batchIndex, exampleOffset: b.batchIndex * b.shape[0] };
          let value: unknown = b;
          for (const fn of maps) value = await fn(value, info);
          const last = b.batchIndex + 1 >= batchesPerEpoch;
          epoch = last ? b.epoch + 1 : b.epoch;
          batchInEpoch = last ? 0 : b.batchIndex + 1;
          return { done: false, value: value as T };
        }
      },
      async return(): Promise<IteratorResult<T>> {
        await batches.return(undefined);
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]() {
        return it;
      },
    };
    return it;
  }

  [Symbol.asyncIterator](): BatchIterator<T> {
    return this.iterator();
  }
}

/** What fit() was given, as a BatchSource. */
export async function batchSourceOf(data: TFRecordDataset<TokenBatch> | ClassificationDataset): Promise<BatchSource<TrainBatch>> {
  if (data instanceof ClassificationDataset) return ClassificationBatches.open(data);
  return new TokenBatches(data);
}

/** Token shards as a BatchSource: the dataset, with its one batch length named. */
class TokenBatches<T> implements BatchSource<T> {
  constructor(private readonly data: TFRecordDataset<T>) {}
  get files(): readonly string[] {
    return this.data.files;
  }
  get numRecords(): number {
    return this.data.numRecords;
  }
  get batchSize(): number {
    return this.data.batchSize;
  }
  get batchesPerEpoch(): number {
    return this.data.batchesPerEpoch;
  }
  get epochs(): number {
    return this.data.epochs;
  }
  get maxLength(): number {
    return this.data.maxLength;
  }
  get batchLengths(): readonly number[] {
    return [this.data.maxLength];
  }
  map<U>(fn: (value: T, info: BatchInfo) => U | Promise<U>): BatchSource<Awaited<U>> {
    return new TokenBatches(this.data.map(fn));
  }
  withEpochs(epochs: number): BatchSource<T> {
    return new TokenBatches(this.data.withEpochs(epochs));
  }
  iterator(state?: DatasetState): BatchIterator<T> {
    return this.data.iterator(state);
  }
  [Symbol.asyncIterator](): BatchIterator<T> {
    return this.data.iterator();
  }
}
