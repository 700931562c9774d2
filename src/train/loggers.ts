// Where metrics go: the Logger interface the Trainer writes to, and its default JSON-lines file (one object
// per logged step); TensorBoard's event files are the other default (tensorboard.ts).
import { appendFileSync, mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "../io/atomic-file.js";
import type { Metrics } from "./callbacks.js";

/**
 * A destination of the Trainer's metrics (Lightning's Logger): TrainerOptions.loggers. Only the main
 * process of a multi-process run logs.
 */
export interface Logger {
  /** The metrics of one step (training ones every logEvery steps, evaluation ones after each evaluation). */
  logMetrics(step: number, metrics: Metrics): void | Promise<void>;
  /** The run's settings (learning rate, schedule, batch, precision, …), once before the first step. */
  logHyperparams?(params: Record<string, unknown>): void | Promise<void>;
  /**
   * A resumed run continues after `lastStep` (-1: it starts over): forget what was logged past it, since
   * those steps are trained and logged again. Returns a line saying what was dropped, if anything.
   */
  rewind?(lastStep: number): Promise<string | undefined>;
  /** The run is over ("success", "stopped" by a request, or "failed"): flush and close. */
  finalize?(status: "success" | "stopped" | "failed"): void | Promise<void>;
}

/** The Logger interface's earlier name. */
export type MetricsLogger = Logger;

/** Appends `{"step":…, …metrics, "time":…}` lines; appending keeps earlier lines of a resumed run. */
export class JsonLinesLogger implements Logger {
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
  }
  logMetrics(step: number, metrics: Metrics): void {
    appendFileSync(this.path, JSON.stringify({ step, ...metrics, time: Date.now() / 1000 }) + "\n");
  }
  async rewind(lastStep: number): Promise<string | undefined> {
    const dropped = await truncateMetricsFile(this.path, lastStep);
    return dropped && lastStep >= 0
      ? `dropped ${dropped} lines past step ${lastStep} from ${this.path} (they are trained again)`
      : undefined;
  }
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
