// Checks made before anything is compiled: that the shards exist and hold records of the length the
// model will be compiled for.
import { readRecords } from "../data/tfrecord/files.js";
import { decodeExample } from "../data/example/example.js";
import { resolveFiles } from "../data/pipeline/files.js";

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
