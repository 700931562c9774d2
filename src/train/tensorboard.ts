// TensorBoard event files: a TFRecord file (the data layer's framing) of `Event` protos, the first
// announcing the file version and each later one carrying scalar summaries. Appended as training goes,
// so TensorBoard shows a run while it is running.
//   Event      { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; SessionLog session_log = 7; }
//   Summary    { repeated Value value = 1; }   Value { string tag = 1; float simple_value = 2; }
//   SessionLog { SessionStatus status = 1; }   (START = 1)
//
// Before its first scalars a logger writes a SessionLog START at their step. TensorBoard takes every
// START after a run's first as a restart and drops the points it has at that step or later, so a run
// resumed from a checkpoint shows the steps it replays once, not a curve that doubles back. (TensorBoard
// treats a directory as one run, so one logger writes to a directory at a time.)
import { appendFileSync, mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { ProtoWriter } from "../io/protobuf.js";
import { frameRecord } from "../data/tfrecord/frame.js";
import type { Metrics } from "./callbacks.js";
import type { Logger } from "./loggers.js";

function event(step: number, body: (w: ProtoWriter) => void): Uint8Array {
  const w = new ProtoWriter().float64Field(1, Date.now() / 1000).intField(2, step);
  body(w);
  return w.finish();
}

function versionEvent(): Uint8Array {
  return event(0, (w) => w.stringField(3, "brain.Event:2"));
}

const SESSION_START = 1;

function sessionStartEvent(step: number): Uint8Array {
  return event(step, (w) => w.nested(7, () => w.intField(1, SESSION_START)));
}

function scalarsEvent(step: number, metrics: Metrics): Uint8Array {
  return event(step, (w) =>
    w.nested(5, () => {
      for (const [tag, value] of Object.entries(metrics)) {
        w.nested(1, () => w.stringField(1, tag).float32Field(2, value));
      }
    }),
  );
}

/** A Logger that writes TensorBoard event files (scalars) under the run's `runs/` directory. */
export class TensorBoardLogger implements Logger {
  readonly path: string;
  private started = false;
  constructor(
    logDir: string,
    private readonly prefix = "",
  ) {
    mkdirSync(logDir, { recursive: true });
    this.path = join(logDir, `events.out.tfevents.${Math.floor(Date.now() / 1000)}.${hostname()}`);
    appendFileSync(this.path, frameRecord(versionEvent()));
  }
  logMetrics(step: number, metrics: Metrics): void {
    const tagged = Object.fromEntries(Object.entries(metrics).map(([k, v]) => [this.prefix + k, v]));
    if (!this.started) {
      this.started = true;
      appendFileSync(this.path, frameRecord(sessionStartEvent(step)));
    }
    appendFileSync(this.path, frameRecord(scalarsEvent(step, tagged)));
  }
}
