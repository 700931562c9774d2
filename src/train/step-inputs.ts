// The device inputs of the compiled steps: each replica's rows of a global batch, with the epoch-wide
// index of its first example (masking and dropout draw from it) and the epoch.
import * as k from "../core/index.js";
import type { TrainBatch } from "./batch-source.js";
import type { BatchInfo } from "../data/pipeline/dataset.js";
import { PerReplica } from "../distribute/per-replica.js";
import type { Strategy } from "../distribute/strategy.js";
import type { StackedStepInputs, StepInputs } from "./train-step.js";

/** A batch with where it sits in its epoch. */
export type Positioned = { batch: TrainBatch; info: BatchInfo };

/** The per-row arrays of a batch that travel to the step: token rows always, labels and token types where the data has them. */
function rowFields(
  batch: TrainBatch,
): { name: "inputIds" | "attentionMask" | "tokenTypeIds" | "labels"; data: Int32Array; perRow: number }[] {
  const length = batch.shape[1];
  return [
    { name: "inputIds" as const, data: batch.inputIds, perRow: length },
    { name: "attentionMask" as const, data: batch.attentionMask, perRow: length },
    ...(batch.tokenTypeIds ? [{ name: "tokenTypeIds" as const, data: batch.tokenTypeIds, perRow: length }] : []),
    ...(batch.labels ? [{ name: "labels" as const, data: batch.labels, perRow: 1 }] : []),
  ];
}

/** Each replica's values as one PerReplica per field (or the one replica's values). */
function perReplica<T extends object>(strategy: Strategy, replica: (r: number) => T): T | Record<string, PerReplica> {
  if (strategy.numReplicas === 1) return replica(0);
  const parts = strategy.devices.map((_, r) => replica(r) as Record<string, k.Array>);
  return Object.fromEntries(Object.keys(parts[0]!).map((f) => [f, new PerReplica(parts.map((p) => p[f]!))]));
}

/**
 * The inputs of one compiled call: for each replica, its rows of each of the group's global batches
 * stacked as [K, rows, length] (labels [K, rows]), with the epoch-wide index of its first example and
 * the epoch per step. The group's batches have one shape (the fit loop groups them so).
 */
export function groupInputs(strategy: Strategy, group: readonly Positioned[]): StackedStepInputs | Record<string, PerReplica> {
  const n = strategy.numReplicas,
    K = group.length;
  const [rows, length] = group[0]!.batch.shape;
  const per = rows / n;
  const replica = (r: number): StackedStepInputs => {
    const dev = strategy.devices[r]!;
    const fields = Object.fromEntries(
      rowFields(group[0]!.batch).map(({ name, perRow }) => {
        const size = per * perRow;
        const out = new Int32Array(K * size);
        group.forEach((g, i) => {
          const data = rowFields(g.batch).find((f) => f.name === name)!.data;
          out.set(data.subarray(r * size, (r + 1) * size), i * size);
        });
        return [name, k.array(out, { shape: perRow === 1 ? [K, per] : [K, per, length], device: dev })];
      }),
    ) as Pick<StackedStepInputs, "inputIds" | "attentionMask">;
    return {
      ...fields,
      exampleOffset: k.array(
        Int32Array.from(group, (g) => g.info.exampleOffset + r * per),
        { shape: [K], device: dev },
      ),
      epoch: k.array(
        Int32Array.from(group, (g) => g.info.epoch),
        { shape: [K], device: dev },
      ),
    };
  };
  return perReplica(strategy, replica);
}

/** Each replica's share of a global batch (its rows, and the epoch-wide index of its first example). */
export function stepInputs(strategy: Strategy, batch: TrainBatch, info: { epoch: number; exampleOffset: number }): StepInputs {
  const n = strategy.numReplicas;
  const [rows, length] = batch.shape;
  if (rows % n !== 0) throw new Error(`a global batch of ${rows} rows does not split evenly over ${n} replicas`);
  const per = rows / n;
  const replica = (r: number): StepInputs => {
    const dev = strategy.devices[r]!;
    const fields = Object.fromEntries(
      rowFields(batch).map(({ name, data, perRow }) => [
        name,
        k.array(data.subarray(r * per * perRow, (r + 1) * per * perRow), { shape: perRow === 1 ? [per] : [per, length], device: dev }),
      ]),
    ) as Pick<StepInputs, "inputIds" | "attentionMask">;
    return {
      ...fields,
      exampleOffset: k.array(new Int32Array([info.exampleOffset + r * per]), { shape: [], device: dev }),
      epoch: k.array(new Int32Array([info.epoch]), { shape: [], device: dev }),
    };
  };
  return perReplica(strategy, replica) as StepInputs;
}

/** A value made on each replica's device (PerReplica), or on the one device. */
export function onEachReplica(strategy: Strategy, make: (device: k.Device) => k.Array): k.Array | PerReplica {
  const devices = strategy.devices;
  return devices.length === 1 ? make(devices[0]!) : new PerReplica(devices.map(make));
}
