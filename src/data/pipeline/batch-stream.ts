// Epochs of batches: for each epoch, the file order (shuffled per epoch when training), the record
// stream, parsing of the fixed-length features, and batching. Everything random is derived from
// (seed, epoch), so an epoch can be replayed and a position restored exactly.
import { FixedInt64Parser } from "../example/fixed-int64.js";
import { FILE_ORDER_DOMAIN, SHUFFLE_DOMAIN, hash32, shuffleInPlace } from "../random.js";
import type { TokenBatch } from "../batch.js";
import type { Compression } from "../tfrecord/files.js";
import type { TFRecordError } from "../tfrecord/errors.js";
import { EpochRecords, END, RECORD } from "./epoch-records.js";

export interface BatchStreamOptions {
  /** This process's files, sorted. */
  files: readonly string[];
  maxLength: number;
  batchSize: number;
  dropRemainder: boolean;
  shuffle: boolean;
  shuffleBuffer: number;
  seed: number;
  epochs: number;
  cycleLength: number;
  compression?: Compression;
  ignoreErrors: boolean;
  /** Each skipped place, with the records it cost. */
  onSkip?: (error: TFRecordError | RecordParseError, records: number) => void;
  featureNames: { inputIds: string; attentionMask: string };
}

export interface PositionedBatch {
  batch: TokenBatch;
  epoch: number;
  /** Index of the batch within its epoch. */
  batchIndex: number;
}

/** A record that is not the tf.train.Example the pipeline expects; names the file and byte offset. */
export class RecordParseError extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly problem: string,
    maxLength: number,
  ) {
    super(
      `${file}: record at byte offset ${offset} is not the expected tf.train.Example: ${problem}. ` +
        `Read files written with input_ids and attention_mask of length ${maxLength} ` +
        `(kiln data prepare --max-length ${maxLength}), or pass the matching maxLength.`,
    );
    this.name = "RecordParseError";
  }
}

export class BatchStream {
  private readonly parser: FixedInt64Parser;
  private records: EpochRecords | undefined;
  private epoch: number;
  private batchIndex = 0;
  private closed = false;
  private readonly scratch: Int32Array[];

  constructor(
    private readonly o: BatchStreamOptions,
    startEpoch: number,
  ) {
    this.epoch = startEpoch;
    this.parser = new FixedInt64Parser([
      { name: o.featureNames.inputIds, length: o.maxLength },
      { name: o.featureNames.attentionMask, length: o.maxLength },
    ]);
    this.scratch = [new Int32Array(o.maxLength), new Int32Array(o.maxLength)];
  }

  /**
   * Skips the first `batches` batches of the current epoch without building them. Records are only
   * parsed when bad ones are being skipped, since then parsing decides which records count.
   */
  async skipBatches(batches: number): Promise<void> {
    const records = this.epochRecords();
    for (let n = batches * this.o.batchSize; n > 0; n--) {
      const more = this.o.ignoreErrors ? await this.nextGoodRecord(records, this.scratch, 0) : (await records.next()) === RECORD;
      if (!more) break;
    }
    this.batchIndex += batches;
  }

  /** The next batch, or null after the last epoch. */
  async next(): Promise<PositionedBatch | null> {
    const { batchSize, maxLength } = this.o;
    while (this.epoch < this.o.epochs && !this.closed) {
      const records = this.epochRecords();
      const inputIds = new Int32Array(batchSize * maxLength);
      const attentionMask = new Int32Array(batchSize * maxLength);
      const outs = [inputIds, attentionMask];
      let rows = 0;
      while (rows < batchSize && (await this.nextGoodRecord(records, outs, rows))) rows++;
      if (rows === batchSize || (rows > 0 && !this.o.dropRemainder)) {
        const batch: TokenBatch =
          rows === batchSize
            ? { inputIds, attentionMask, shape: [batchSize, maxLength] }
            : {
                inputIds: inputIds.slice(0, rows * maxLength),
                attentionMask: attentionMask.slice(0, rows * maxLength),
                shape: [rows, maxLength],
              };
        return { batch, epoch: this.epoch, batchIndex: this.batchIndex++ };
      }
      // The epoch is over (a remainder smaller than a batch is dropped).
      await this.endEpoch();
    }
    return null;
  }

  /** Stops for good, releasing open files. */
  async close(): Promise<void> {
    this.closed = true;
    await this.closeEpoch();
  }

  private async closeEpoch(): Promise<void> {
    await this.records?.close();
    this.records = undefined;
  }

  private async endEpoch(): Promise<void> {
    await this.closeEpoch();
    this.epoch++;
    this.batchIndex = 0;
  }

  private epochRecords(): EpochRecords {
    if (this.records) return this.records;
    const { seed, shuffle } = this.o;
    const files = shuffle ? shuffleInPlace(this.o.files.slice(), hash32(seed >>> 0, FILE_ORDER_DOMAIN, this.epoch)) : this.o.files;
    this.records = new EpochRecords(
      files,
      {
        cycleLength: this.o.cycleLength,
        ignoreErrors: this.o.ignoreErrors,
        ...(this.o.compression ? { compression: this.o.compression } : {}),
        ...(this.o.onSkip ? { onSkip: this.o.onSkip } : {}),
      },
      shuffle ? { capacity: this.o.shuffleBuffer, key: hash32(seed >>> 0, SHUFFLE_DOMAIN, this.epoch) } : undefined,
    );
    return this.records;
  }

  /**
   * Parses the next record into row `row` of `outs`. With ignoreErrors, records that do not parse
   * are skipped (and reported); otherwise they are an error naming file and offset.
   */
  private async nextGoodRecord(records: EpochRecords, outs: Int32Array[], row: number): Promise<boolean> {
    for (;;) {
      let r = records.tryNext();
      if (r !== RECORD && r !== END) r = await records.next();
      if (r === END) return false;
      const { record, file, offset } = records.current;
      try {
        this.parser.parse(record, outs, row);
        return true;
      } catch (e) {
        const error = new RecordParseError(records.files[file]!, offset, (e as Error).message, this.o.maxLength);
        if (!this.o.ignoreErrors) throw error;
        this.o.onSkip?.(error, 1);
      }
    }
  }
}
