// The device inputs of the compiled steps: each replica's rows of a global batch, with the epoch-wide
// index of its first example (masking and dropout draw from it) and the epoch.
import * as k from "../core/index.js";
import type { TokenBatch } from "../data/batch.js";
import type { BatchInfo } from "../data/pipeline/dataset.js";
import { PerReplica } from "../distribute/per-replica.js";
import type { Strategy } from "../distribute/strategy.js";
import type { StackedStepInputs, StepInputs } from "./train-step.js";

/** A batch with where it sits in its epoch. */
export type Positioned = { batch: TokenBatch; info: BatchInfo };

/**
 * The inputs of one compiled call: for each replica, its rows of each of the group's global batches
 * stacked as [K, rows, length], with the epoch-wide index of its first example and the epoch per step,
 * and under a time budget the fraction of it spent at each step (the same on every replica).
 */
export function groupInputs(
  strategy: Strategy,
  group: readonly Positioned[],
  budgetFractions?: readonly number[],
): StackedStepInputs | Record<string, PerReplica> {
  const n = strategy.numReplicas,
    K = group.length;
  const [rows, length] = group[0]!.batch.shape;
  const per = rows / n,
    size = per * length;
  const replica = (r: number): StackedStepInputs => {
    const dev = strategy.devices[r]!;
    const ids = new Int32Array(K * size),
      mask = new Int32Array(K * size);
    group.forEach((g, i) => {
      ids.set(g.batch.inputIds.subarray(r * size, (r + 1) * size), i * size);
      mask.set(g.batch.attentionMask.subarray(r * size, (r + 1) * size), i * size);
    });
    return {
      inputIds: k.array(ids, { shape: [K, per, length], device: dev }),
      attentionMask: k.array(mask, { shape: [K, per, length], device: dev }),
      exampleOffset: k.array(
        Int32Array.from(group, (g) => g.info.exampleOffset + r * per),
        { shape: [K], device: dev },
      ),
      epoch: k.array(
        Int32Array.from(group, (g) => g.info.epoch),
        { shape: [K], device: dev },
      ),
      ...(budgetFractions ? { budgetFraction: k.array(Float32Array.from(budgetFractions), { shape: [K], device: dev }) } : {}),
    };
  };
  if (n === 1) return replica(0);
  const parts = strategy.devices.map((_, r) => replica(r));
  const fields = ["inputIds", "attentionMask", "exampleOffset", "epoch", ...(budgetFractions ? ["budgetFraction" as const] : [])] as const;
  return Object.fromEntries(fields.map((f) => [f, new PerReplica(parts.map((p) => p[f]!))]));
}

/** Each replica's share of a global batch (its rows, and the epoch-wide index of its first example). */
export function stepInputs(strategy: Strategy, batch: TokenBatch, info: { epoch: number; exampleOffset: number }): StepInputs {
  const split = strategy.splitBatch(batch, info.exampleOffset);
  const epoch = onEachReplica(strategy, (d) => k.array(new Int32Array([info.epoch]), { shape: [], device: d }));
  return { ...split, epoch } as unknown as StepInputs;
}

/** A value made on each replica's device (PerReplica), or on the one device. */
export function onEachReplica(strategy: Strategy, make: (device: k.Device) => k.Array): k.Array | PerReplica {
  const devices = strategy.devices;
  return devices.length === 1 ? make(devices[0]!) : new PerReplica(devices.map(make));
}
