// Batches of records of similar length: records come through the epoch's shuffle (file order, then the
// shuffle buffer, both seeded per epoch), each goes to the bucket of its padded length (the next multiple
// of padToMultipleOf), and a bucket that holds batchSize records becomes a batch, padded to that length.
// At the end of an epoch the partial buckets are emitted too (shortest first, or in a seeded order when
// shuffling), their missing rows padding (attention mask 0, label IGNORE_LABEL), so that every record is
// in exactly one batch per epoch and every batch is [batchSize, L]: the shapes are the padded lengths,
// at most ceil(maxLength / padToMultipleOf), as with tf.data's bucket_by_sequence_length.
import { FILE_ORDER_DOMAIN, SHUFFLE_DOMAIN, hash32, shuffleInPlace } from "../random.js";
import { IGNORE_LABEL } from "../batch.js";
import { decodeClassificationRecord, type ClassificationRecord } from "../classification/record-layout.js";
import { paddedLength } from "../classification/padded-length.js";
import { EpochRecords, END } from "./epoch-records.js";

/** A batch of classification records; rows past `rows` are padding. */
export interface ClassificationBatch {
  /** [batchSize, length], row-major. */
  inputIds: Int32Array;
  attentionMask: Int32Array;
  /** Zeros for single texts; 1 on the second text of a pair. */
  tokenTypeIds: Int32Array;
  /** [batchSize]; IGNORE_LABEL on padding rows. */
  labels: Int32Array;
  shape: [number, number];
  /** Real records in the batch (the first `rows` rows). */
  rows: number;
  epoch: number;
  /** Index of the batch within its epoch. */
  batchIndex: number;
}

export interface LengthBucketStreamOptions {
  files: readonly string[];
  batchSize: number;
  padToMultipleOf: number;
  maxLength: number;
  padId: number;
  shuffle: boolean;
  shuffleBuffer: number;
  seed: number;
  epochs: number;
  cycleLength: number;
  /** The epoch to start at (each epoch's order is its own, so a run resumes mid-way exactly). Default 0. */
  firstEpoch?: number;
}

/** A record that is not a classification record, or longer than the data's maxLength. */
export class ClassificationRecordError extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly problem: string,
  ) {
    super(
      `${file}: record at byte offset ${offset} is not a classification record: ${problem}. ` +
        `Read files written by prepareClassificationDataset (kiln data prepare --task classification)`,
    );
    this.name = "ClassificationRecordError";
  }
}

/** Bucket-seed domain, apart from the file-order and shuffle-buffer draws of the same seed. */
const BUCKET_ORDER_DOMAIN = 0x20000000;

export async function* lengthBucketBatches(o: LengthBucketStreamOptions): AsyncGenerator<ClassificationBatch> {
  for (let epoch = o.firstEpoch ?? 0; epoch < o.epochs; epoch++) {
    const files = o.shuffle ? shuffleInPlace(o.files.slice(), hash32(o.seed >>> 0, FILE_ORDER_DOMAIN, epoch)) : o.files;
    const records = new EpochRecords(
      files,
      { cycleLength: o.cycleLength },
      o.shuffle ? { capacity: o.shuffleBuffer, key: hash32(o.seed >>> 0, SHUFFLE_DOMAIN, epoch) } : undefined,
    );
    const buckets = new Map<number, ClassificationRecord[]>();
    let batchIndex = 0;
    try {
      while ((await records.next()) !== END) {
        const { record, file, offset } = records.current;
        let r: ClassificationRecord;
        try {
          r = decodeClassificationRecord(record);
        } catch (e) {
          throw new ClassificationRecordError(files[file]!, offset, (e as Error).message);
        }
        if (r.inputIds.length > o.maxLength)
          throw new ClassificationRecordError(
            files[file]!,
            offset,
            `it has ${r.inputIds.length} tokens, more than maxLength ${o.maxLength}`,
          );
        const L = paddedLength(r.inputIds.length, o.padToMultipleOf);
        let bucket = buckets.get(L);
        if (!bucket) buckets.set(L, (bucket = []));
        bucket.push(r);
        if (bucket.length === o.batchSize) {
          buckets.delete(L);
          yield toBatch(bucket, L, o, epoch, batchIndex++);
        }
      }
    } finally {
      await records.close();
    }
    const lengths = [...buckets.keys()].sort((a, b) => a - b);
    if (o.shuffle) shuffleInPlace(lengths, hash32(o.seed >>> 0, BUCKET_ORDER_DOMAIN, epoch));
    for (const L of lengths) yield toBatch(buckets.get(L)!, L, o, epoch, batchIndex++);
  }
}

function toBatch(
  records: readonly ClassificationRecord[],
  L: number,
  o: LengthBucketStreamOptions,
  epoch: number,
  batchIndex: number,
): ClassificationBatch {
  const B = o.batchSize;
  const inputIds = new Int32Array(B * L).fill(o.padId);
  const attentionMask = new Int32Array(B * L);
  const tokenTypeIds = new Int32Array(B * L);
  const labels = new Int32Array(B).fill(IGNORE_LABEL);
  records.forEach((r, row) => {
    inputIds.set(r.inputIds, row * L);
    attentionMask.fill(1, row * L, row * L + r.inputIds.length);
    if (r.tokenTypeIds) tokenTypeIds.set(r.tokenTypeIds, row * L);
    labels[row] = r.label;
  });
  return { inputIds, attentionMask, tokenTypeIds, labels, shape: [B, L], rows: records.length, epoch, batchIndex };
}
