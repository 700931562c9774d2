// Checks made before anything is compiled: that the shards exist and hold records of the length the
// model will be compiled for, and that the model has positions for that length.
import { readRecords } from "../data/tfrecord/files.js";
import { decodeExample } from "../data/example/example.js";
import { resolveFiles } from "../data/pipeline/files.js";
import { MANIFEST, parentDir, readManifest } from "../data/prepare/manifest.js";
import { joinPath } from "../data/storage/index.js";
import { OptionError } from "../core/option-error.js";
import type { LanguageModel } from "../models/language-model.js";
import { maxLengthOf, modelSpec, type ModelConfig } from "../models/registry.js";
import { positionsNeeded, type ModelType } from "../models/config.js";

/** The input_ids length of the first record of the first file a spec names. */
export async function probeRecordLength(spec: string | string[]): Promise<{ file: string; length: number }> {
  const files = await resolveFiles(spec);
  const file = files[0]!;
  for await (const record of readRecords(file)) {
    const f = decodeExample(record).input_ids;
    if (!f || f.kind !== "int64")
      throw new Error(`${file}: the first record has no int64 "input_ids" feature; is this a dataset written by kiln data prepare?`);
    return { file, length: f.values.length };
  }
  throw new Error(`${file} holds no records`);
}

/**
 * The tokens per record of the data `spec` names: the maxLength `data prepare` recorded in the split's
 * prepare.json (checked against the first record), or the first record's length for shards made
 * elsewhere. A `maxLength` asked for is checked against it: the data cannot be cut again here.
 */
export async function dataRecordLength(spec: string | string[], maxLength?: number): Promise<number> {
  const probe = await probeRecordLength(spec);
  const manifestPath = joinPath(parentDir(probe.file), MANIFEST);
  const prepared = (await readManifest(parentDir(probe.file)))?.settings.maxLength;
  if (typeof prepared === "number" && prepared !== probe.length)
    throw new Error(
      `${probe.file} holds records of ${probe.length} tokens, but ${manifestPath} says the data was prepared with maxLength ` +
        `${prepared}: the shards are not the ones data prepare wrote there; prepare the data again`,
    );
  if (maxLength === undefined || maxLength === probe.length) return probe.length;
  throw new OptionError({
    option: "maxLength",
    value: maxLength,
    why:
      typeof prepared === "number"
        ? `does not match the data: ${manifestPath} says it was prepared with maxLength ${prepared}`
        : `does not match the shards: ${probe.file} holds records of ${probe.length} tokens`,
    fix: `Prepare the data with maxLength ${maxLength}, or leave maxLength out to train on records of ${probe.length}`,
    where: "training data",
  });
}

/**
 * Refuses data whose sequences are longer than the model has positions for (`option` is the fit
 * argument holding it, "train" or "eval"). Without this the position lookup reads past its table:
 * PyTorch raises there, a compiled gather clamps and trains on wrong positions.
 */
export function checkDataFitsModel(model: LanguageModel, data: { maxLength: number; files: readonly string[] }, option: string): void {
  const config = model.config as ModelConfig;
  const limit = maxLengthOf(config);
  if (data.maxLength <= limit) return;
  const field = modelSpec(config).positionsField;
  const needed = positionsNeeded(config.model_type as ModelType, data.maxLength, Number(config.pad_token_id ?? 0));
  throw new OptionError({
    where: "fit",
    option,
    value: data,
    why:
      `holds sequences of ${data.maxLength} tokens (${data.files[0] ?? "no files"}), but the model has positions for ${limit} ` +
      `(its config's ${field} is ${config[field]})`,
    fix: `Give the model ${field} ${needed} or more, or prepare the data with maxLength ${limit}`,
  });
}
