// Shared pieces of the transformers interop tests: the `kiln` command, padded batches of real SOTU
// sentences, Kiln's logits for them, and the largest difference between two float arrays.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import * as k from "../../src/index.js";
import type { CausalLanguageModel, MaskedLanguageModel, Params } from "../../src/models/index.js";
import { writeSafetensors } from "../../src/models/safetensors.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

/** Runs `kiln ARGS…`; throws with its stderr when it fails. */
export function kiln(...args: string[]): string {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`kiln ${args.join(" ")} exited with ${r.status}:\n${r.stderr}`);
  return r.stdout;
}

/** Runs `kiln ARGS…` whatever the outcome; returns its exit code, stdout and stderr. */
export function kilnRun(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/**
 * `count` sentences from the speeches, each from a different speech, whose encodings (special tokens
 * included) are between `min` and `max` tokens long and differ in length, so a batch of them is padded.
 */
export function sotuSentences(
  lines: readonly string[],
  encode: (s: string) => number[],
  count: number,
  min: number,
  max: number,
): string[] {
  const out: string[] = [];
  const lengths = new Set<number>();
  for (const line of lines) {
    const sentence = line.split(/(?<=[.!?])\s+/).find((s) => {
      const n = encode(s).length;
      return n >= min && n <= max && !lengths.has(n);
    });
    if (!sentence) continue;
    out.push(sentence);
    lengths.add(encode(sentence).length);
    if (out.length === count) return out;
  }
  throw new Error(`only ${out.length} of ${count} sentences of ${min}..${max} tokens found`);
}

export interface PaddedBatch {
  inputIds: Int32Array;
  attentionMask: Int32Array;
  shape: [number, number];
}

/** Right-padded ids and mask for `rows`, as a tokenizer's padding=True makes them. */
export function padBatch(rows: readonly number[][], padId: number): PaddedBatch {
  const len = Math.max(...rows.map((r) => r.length));
  const inputIds = new Int32Array(rows.length * len).fill(padId);
  const attentionMask = new Int32Array(rows.length * len);
  rows.forEach((r, i) => {
    inputIds.set(r, i * len);
    attentionMask.fill(1, i * len, i * len + r.length);
  });
  return { inputIds, attentionMask, shape: [rows.length, len] };
}

/** Writes a batch as safetensors (input_ids, attention_mask) for a Python script to read. */
export async function writeBatch(path: string, b: PaddedBatch): Promise<void> {
  await writeSafetensors(path, {
    input_ids: { dtype: "i32", shape: b.shape, data: b.inputIds },
    attention_mask: { dtype: "i32", shape: b.shape, data: b.attentionMask },
  });
}

/** Kiln's vocabulary logits [batch, seq, vocab] for a padded batch (no dropout), of a masked or a causal LM. */
export async function kilnLogits(model: MaskedLanguageModel | CausalLanguageModel, params: Params, b: PaddedBatch): Promise<Float32Array> {
  const forward = k.jit((p: Params, ids: k.Array, mask: k.Array) => model.lmHead(p, model.hidden(p, ids, mask)));
  return (await forward(
    params,
    k.array(b.inputIds, { shape: b.shape }),
    k.array(b.attentionMask, { shape: b.shape }),
  ).data()) as Float32Array;
}

/** Kiln's encoder output [batch, seq, hidden] for a padded batch (no dropout). */
export async function kilnHidden(model: MaskedLanguageModel, params: Params, b: PaddedBatch): Promise<Float32Array> {
  const forward = k.jit((p: Params, ids: k.Array, mask: k.Array) => model.hidden(p, ids, mask));
  return (await forward(
    params,
    k.array(b.inputIds, { shape: b.shape }),
    k.array(b.attentionMask, { shape: b.shape }),
  ).data()) as Float32Array;
}

/** The largest |a[i] - b[i]| (lengths must agree). */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`arrays of ${a.length} and ${b.length} elements`);
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    if (Number.isNaN(d)) return NaN;
    if (d > worst) worst = d;
  }
  return worst;
}
