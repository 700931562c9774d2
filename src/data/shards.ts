// Shard file names: `dataset-{shard index}-{records in shard}.tfrecord`, as the reference pipeline
// writes them, so the record count of a split can be read from its file names alone.
import type { Compression } from "./tfrecord/files.js";

const RECORDS_IN_NAME = /-\d+-(\d+)\.tfrecord(?:\.gz)?$/;

/** A shard's file name: dataset-<index>-<records>.tfrecord, .gz when compressed. */
export function shardFileName(index: number, records: number, compression: Compression = "none"): string {
  return `dataset-${index}-${records}.tfrecord${compression === "gzip" ? ".gz" : ""}`;
}

/** The record count a shard's name states, or undefined when the name does not follow the pattern. */
export function recordsFromFileName(path: string): number | undefined {
  const m = RECORDS_IN_NAME.exec(path);
  return m ? Number(m[1]) : undefined;
}
