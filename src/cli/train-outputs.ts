// Where `kiln train` writes: a local --output-dir (checked before any work), optionally pushed to
// gs:// with --push-to, or a gs:// --output-dir, trained into a local staging directory and pushed
// the same way. With --resume, a gs:// output first brings its newest checkpoint back.
import { rm } from "node:fs/promises";
import { isGcsPath, joinPath } from "../data/storage/index.js";
import { downloadFiles, listRemoteFiles, localStandIn } from "../data/storage/transfer.js";
import { PushToStorage } from "../train/remote-sync.js";
import { checkpointStep } from "../train/checkpoint.js";
import { checkOutputFlag, UsageError } from "./args.js";
import { probeRemote } from "./gcs-paths.js";

export interface TrainOutputs {
  /** The directory the Trainer writes. */
  localDir: string;
  /** The callback that pushes it to gs://, when it is pushed. */
  push?: PushToStorage;
}

export async function trainOutputs(outputDir: string, pushTo: string | undefined, resume: boolean): Promise<TrainOutputs> {
  if (pushTo !== undefined && !isGcsPath(pushTo))
    throw new UsageError(`--push-to ${pushTo}: give a gs://bucket/prefix (the run is written to --output-dir and copied there)`);
  if (!isGcsPath(outputDir)) {
    checkOutputFlag("output-dir", outputDir);
    if (pushTo === undefined) return { localDir: outputDir };
    await probeRemote("push-to", pushTo);
    return { localDir: outputDir, push: new PushToStorage(outputDir, pushTo) };
  }
  if (pushTo !== undefined)
    throw new UsageError(`--push-to ${pushTo}: --output-dir ${outputDir} is on gs:// and is pushed to already; give only one of them`);
  const hasFiles = await probeRemote("output-dir", outputDir);
  if (hasFiles && !resume)
    throw new UsageError(
      `--output-dir ${outputDir} already holds objects; pass --resume to continue from its newest checkpoint, or give an empty prefix`,
    );
  const staging = localStandIn(outputDir, "staging");
  checkOutputFlag("output-dir", staging);
  await rm(staging, { recursive: true, force: true });
  console.error(`kiln train: --output-dir ${outputDir}: training in ${staging}, pushed to the bucket at each checkpoint and at the end`);
  if (resume && hasFiles) {
    const checkpoint = await pullNewestCheckpoint(outputDir, staging);
    console.error(
      checkpoint
        ? `kiln train: resuming from ${joinPath(outputDir, checkpoint)}`
        : `kiln train: ${outputDir} holds no complete checkpoint; starting from the beginning`,
    );
  }
  return { localDir: staging, push: new PushToStorage(staging, outputDir) };
}

/**
 * Downloads the newest complete checkpoint under the gs:// `url` (one with its trainer_state.json,
 * which is uploaded last), with metrics.jsonl and runs/, into `localDir`. Returns its name.
 */
export async function pullNewestCheckpoint(url: string, localDir: string): Promise<string | undefined> {
  let files: string[];
  try {
    files = await listRemoteFiles(url);
  } catch (e) {
    throw new Error(`--output-dir ${(e as Error).message}`, { cause: e });
  }
  // A checkpoint is complete in the bucket once its trainer_state.json is there (it is uploaded last).
  const steps = files
    .map((f) => f.split("/"))
    .filter((parts) => parts.length === 2 && parts[1] === "trainer_state.json")
    .map((parts) => checkpointStep(parts[0]!))
    .filter((s) => s !== undefined);
  if (steps.length === 0) return undefined;
  const name = `checkpoint-${Math.max(...steps)}`;
  const wanted = files.filter((f) => f.startsWith(`${name}/`) || f === "metrics.jsonl" || f.startsWith("runs/"));
  try {
    await downloadFiles(url, wanted, localDir);
  } catch (e) {
    throw new Error(`--output-dir ${(e as Error).message}`, { cause: e });
  }
  return name;
}
