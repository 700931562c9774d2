// Where metrics go: a JSON-lines file (one object per logged step) and TensorBoard event files.
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Metrics } from "./callbacks.js";

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
