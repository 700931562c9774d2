// What `kiln quickstart --task classify` leaves for a PyTorch run of the same recipe
// (bench/peers/hf_classify_cpu.py): the fine-tuning batches exactly as the Trainer reads them (the
// length-bucketed training stream, epoch after epoch, the step count of them), the held-out batches, and
// the recipe (the starting weights' directory, optimizer and schedule). Same tokens, same order, same start.
import { createWriteStream } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import { join } from "node:path";
import { once } from "node:events";
import { writeJsonAtomic } from "../../io/atomic-file.js";
import type { ClassificationDataset } from "../../data/pipeline/classification-dataset.js";
import { batchSourceOf } from "../../train/batch-source.js";

/** The fine-tuning recipe as the peer reads it (recipe.json). */
export interface PeerRecipe {
  init_dir: string;
  labels: string[];
  steps: number;
  learning_rate: number;
  warmup_steps: number;
  schedule: "linear";
  weight_decay: number;
  betas: [number, number];
  eps: number;
  /** Kiln's accuracy and macro F1 on the same held-out batches, for the comparison. */
  kiln: { accuracy: number; macro_f1: number };
}

/**
 * Writes batches of `data` as JSON Lines (one batch a line: its rows' ids, mask and labels), atomically:
 * the first `count` of the stream the Trainer reads (epoch after epoch), or with count Infinity one epoch.
 */
async function writeBatches(path: string, data: ClassificationDataset, count: number): Promise<number> {
  const tmp = `${path}.tmp-${process.pid}`;
  const out = createWriteStream(tmp);
  const rows = (a: Int32Array, [b, l]: [number, number]) => Array.from({ length: b }, (_, r) => Array.from(a.subarray(r * l, (r + 1) * l)));
  let written = 0;
  const source = await batchSourceOf(data);
  for await (const batch of count === Infinity ? source : source.withEpochs(Infinity)) {
    const line = JSON.stringify({
      input_ids: rows(batch.inputIds, batch.shape),
      attention_mask: rows(batch.attentionMask, batch.shape),
      labels: Array.from(batch.labels!),
    });
    if (!out.write(line + "\n")) await once(out, "drain");
    if (++written >= count) break;
  }
  out.end();
  await once(out, "finish");
  await rename(tmp, path);
  return written;
}

/** Writes DIR/peer: train-batches.jsonl (the first `steps` training batches), held-out-batches.jsonl (one pass), recipe.json. */
export async function writePeerData(
  dir: string,
  train: ClassificationDataset,
  heldOut: ClassificationDataset,
  recipe: PeerRecipe,
): Promise<string> {
  const peer = join(dir, "peer");
  await mkdir(peer, { recursive: true });
  await writeBatches(join(peer, "train-batches.jsonl"), train, recipe.steps);
  await writeBatches(join(peer, "held-out-batches.jsonl"), heldOut, Infinity);
  await writeJsonAtomic(join(peer, "recipe.json"), recipe);
  return peer;
}
