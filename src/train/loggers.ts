// Where metrics go: a JSON-lines file (one object per logged step) and TensorBoard event files.
import { appendFileSync, mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "../io/atomic-file.js";
import type { Metrics } from "./callbacks.js";

/** Where the Trainer sends metrics every logged step (JSON lines, TensorBoard, …). */
export interface MetricsLogger {
  log(step: number, metrics: Metrics): void;
  close(): Promise<void> | void;
}

/** Appends `{"step":…, …metrics, "time":…}` lines; appending keeps earlier lines of a resumed run. */
export class JsonLinesLogger implements MetricsLogger {
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
  }
  log(step: number, metrics: Metrics): void {
    appendFileSync(this.path, JSON.stringify({ step, ...metrics, time: Date.now() / 1000 }) + "\n");
  }
  close(): void {}
}

/**
 * Drops the lines of a JSON-lines metrics file past `lastStep` (all of them for -1), so that a run
 * resumed from the checkpoint at `lastStep` logs the steps it replays once. Returns how many were
 * dropped; a missing file is nothing to do. A last line cut off by a kill is dropped too.
 */
export async function truncateMetricsFile(path: string, lastStep: number): Promise<number> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw e;
  }
  const lines = text.split("\n").filter((l) => l !== "");
  const kept = lines.filter((l) => {
    try {
      return (JSON.parse(l) as { step: number }).step <= lastStep;
    } catch {
      return false;
    }
  });
  if (kept.length === lines.length && text.endsWith("\n")) return 0;
  await writeFileAtomic(path, kept.map((l) => l + "\n").join(""));
  return lines.length - kept.length;
}
