// Checks made before anything is compiled: that the shards exist and hold records of the length the
// model will be compiled for.
import { readRecords } from "../data/tfrecord/files.js";
import { decodeExample } from "../data/example/example.js";
import { resolveFiles } from "../data/pipeline/files.js";
import { MANIFEST, parentDir, readManifest } from "../data/prepare/manifest.js";
import { joinPath } from "../data/storage/index.js";
import { OptionError } from "../core/option-error.js";

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
