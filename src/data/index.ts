// The data layer's public API: TFRecord files and tf.train.Example records, storage (local and
// gs://), dataset preparation, the streaming input pipeline, and MLM masking.

export { crc32c, maskCrc, maskedCrc32c } from "./tfrecord/crc32c.js";
export { frameRecord, frameRecords, HEADER_BYTES, FOOTER_BYTES } from "./tfrecord/frame.js";
export { RecordReader, type RecordReaderOptions } from "./tfrecord/reader.js";
export { ShardCountError, TFRecordError } from "./tfrecord/errors.js";
export { TFRecordWriter, countRecords, openRecordReader, readRecords, writeRecords, type Compression } from "./tfrecord/files.js";

export { decodeExample, encodeExample, type DecodedFeature, type Feature } from "./example/example.js";
export { FeatureError, FixedInt64Encoder, FixedInt64Parser, type FixedFeatureSpec } from "./example/fixed-int64.js";
export { ProtoError } from "../io/protobuf.js";

export { isGcsPath, joinPath, storageFor, type AtomicWriter, type ReadRange, type Storage } from "./storage/index.js";
export { gcsRequestCounts, setGcsRetrySettings, type GcsRequestCounts, type GcsRetrySettings } from "./storage/index.js";

export { recordsFromFileName, shardFileName } from "./shards.js";
export { prepareDataset, type PrepareOptions, type PrepareResult, type SplitSummary } from "./prepare/prepare.js";
export { openEncoder, type Encoder } from "./prepare/text-encoder.js";

export {
  openDataset,
  TFRecordDataset,
  DatasetIterator,
  type BatchInfo,
  type DatasetOptions,
  type DatasetState,
} from "./pipeline/dataset.js";
export { RecordParseError } from "./pipeline/batch-stream.js";
export { checkPreparedInputs, recordCounts, resolveFiles } from "./pipeline/files.js";
export { SkippedRecords, type SkippedPlace } from "./pipeline/skipped-records.js";
export { checkShard, checkShards, type ShardCheck } from "./shard-check.js";
export {
  prepareClassificationDataset,
  type ClassificationPrepareOptions,
  type ClassificationPrepareResult,
} from "./classification/prepare.js";
export { ClassificationInputError } from "./classification/input-error.js";
export { TABLE_FORMATS, type TableFormat } from "./classification/readers.js";
export { type LabelMap } from "./classification/label-map.js";
export { openClassificationDataset, ClassificationDataset, type ClassificationDatasetOptions } from "./pipeline/classification-dataset.js";
export { ClassificationRecordError, type ClassificationBatch } from "./pipeline/length-bucket-stream.js";
export { checkDataTokenizer, checkPreparedDir, readManifest, ShardDigestError, type PrepareManifest } from "./prepare/manifest.js";

export { IGNORE_LABEL, type MaskedBatch, type TokenBatch } from "./batch.js";
export { maskRowKey, maskTokens, maskingMap, type MaskOptions } from "./mlm/mask.js";
export { maskTokensTraced, type TracedMaskOptions } from "./mlm/mask-traced.js";
export { writeSotuCorpus } from "./sotu.js";
export { hash32, threshold24, uniform24 } from "./random.js";
