// The tf.train.Example of a classification record: `input_ids` of the record's own length (no padding:
// the batch stream pads each batch to its bucket's length), `token_type_ids` of the same length for
// text pairs, and `label`, the class id. The attention mask is not stored: every stored token is real.
import { decodeExample, encodeExample, type Feature } from "../example/example.js";

export const FEATURES = { inputIds: "input_ids", tokenTypeIds: "token_type_ids", label: "label" } as const;

export interface ClassificationRecord {
  inputIds: Int32Array;
  tokenTypeIds?: Int32Array;
  label: number;
}

export function encodeClassificationRecord(r: ClassificationRecord): Uint8Array {
  const features: Record<string, Feature> = {
    [FEATURES.inputIds]: { kind: "int64", values: r.inputIds },
    [FEATURES.label]: { kind: "int64", values: [r.label] },
  };
  if (r.tokenTypeIds) features[FEATURES.tokenTypeIds] = { kind: "int64", values: r.tokenTypeIds };
  return encodeExample(features);
}

/** Decodes a record; throws an Error saying what is missing or wrong. */
export function decodeClassificationRecord(bytes: Uint8Array): ClassificationRecord {
  const f = decodeExample(bytes);
  const ids = f[FEATURES.inputIds];
  const label = f[FEATURES.label];
  if (ids?.kind !== "int64" || ids.values.length === 0) throw new Error(`it has no int64 feature "${FEATURES.inputIds}"`);
  if (label?.kind !== "int64" || label.values.length !== 1) throw new Error(`it has no single int64 "${FEATURES.label}"`);
  const types = f[FEATURES.tokenTypeIds];
  const record: ClassificationRecord = { inputIds: toInt32(ids.values), label: Number(label.values[0]) };
  if (types !== undefined) {
    if (types.kind !== "int64" || types.values.length !== ids.values.length)
      throw new Error(`its "${FEATURES.tokenTypeIds}" is not an int64 list as long as "${FEATURES.inputIds}"`);
    record.tokenTypeIds = toInt32(types.values);
  }
  return record;
}

function toInt32(values: BigInt64Array): Int32Array {
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = Number(values[i]);
  return out;
}
