// The fine-tuning benchmark's data: variable-length labelled examples (synthetic ids, lengths spread
// from 8 to maxLength as real text's are), grouped by length as Kiln's classification stream groups
// them (each padded to the next multiple of padTo, batches cut per padded length, a bucket's last batch
// filled with padding rows labelled -100), in a seeded order. Every contender reads the same file, so
// all train on the same batches in the same order.
import { writeFileSync, renameSync } from "node:fs";

export interface ClassifyBatchSpec {
  examples: number;
  batch: number;
  maxLength: number;
  padTo: number;
  vocab: number;
  seed: number;
}

export interface ClassifyBatch {
  length: number;
  /** [batch·length] row-major; 0 (BERT's [PAD]) past each row's end. */
  input_ids: number[];
  attention_mask: number[];
  /** [batch]; -100 on padding rows. */
  labels: number[];
}

/** A 32-bit linear congruential stream: the same numbers on every run. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function makeClassifyBatches(o: ClassifyBatchSpec): ClassifyBatch[] {
  const rand = lcg(o.seed);
  const buckets = new Map<number, number[][]>();
  for (let i = 0; i < o.examples; i++) {
    // Lengths skewed towards the short end, as sentences and reviews are: 8 … maxLength.
    const len = 8 + Math.floor(rand() ** 1.5 * (o.maxLength - 7));
    const ids = [101, ...Array.from({ length: len - 2 }, () => 1000 + Math.floor(rand() * (o.vocab - 1000))), 102];
    const padded = Math.min(o.maxLength, Math.ceil(len / o.padTo) * o.padTo);
    if (!buckets.has(padded)) buckets.set(padded, []);
    buckets.get(padded)!.push([Math.floor(rand() * 2), ...ids]);
  }
  const batches: ClassifyBatch[] = [];
  for (const [length, rows] of [...buckets].sort((a, b) => a[0] - b[0]))
    for (let at = 0; at < rows.length; at += o.batch) {
      const b: ClassifyBatch = { length, input_ids: [], attention_mask: [], labels: [] };
      for (let r = 0; r < o.batch; r++) {
        const row = rows[at + r];
        const ids = row ? row.slice(1) : [];
        b.labels.push(row ? row[0]! : -100);
        for (let t = 0; t < length; t++) {
          b.input_ids.push(ids[t] ?? 0);
          b.attention_mask.push(t < ids.length ? 1 : 0);
        }
      }
      batches.push(b);
    }
  // A seeded shuffle of the batch order (Fisher–Yates), so lengths alternate as in training.
  for (let i = batches.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [batches[i], batches[j]] = [batches[j]!, batches[i]!];
  }
  return batches;
}

/** Real (attended) and padded tokens of a list of batches. */
export function tokenCounts(batches: readonly ClassifyBatch[], batch: number): { real: number; padded: number } {
  let real = 0,
    padded = 0;
  for (const b of batches) {
    real += b.attention_mask.reduce((a, x) => a + x, 0);
    padded += batch * b.length;
  }
  return { real, padded };
}

/** Writes the spec and batches as one JSON file (atomically), the contenders' common input. */
export function writeClassifyBatches(path: string, spec: ClassifyBatchSpec, batches: readonly ClassifyBatch[]): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ ...spec, batches }));
  renameSync(tmp, path);
}
