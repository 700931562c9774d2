// Pushing a training run's outputs to gs:// while it trains (the reference pipeline's PushToHubCallback):
// each checkpoint is uploaded in the background, a push asked for while one is still running is
// skipped (counted), a failed upload is retried once and then reported (counted) without stopping
// training, and at the end one blocking upload sends the final model and the last checkpoint.
import { readdir, stat } from "node:fs/promises";
import { basename, join, relative } from "node:path";
import { joinPath } from "../data/storage/index.js";
import { listLocalFiles, uploadFiles } from "../data/storage/transfer.js";
import type { Callback, TrainerView } from "./callbacks.js";
import { checkpointStep } from "./checkpoint.js";

export interface RemoteSyncCounts {
  /** Uploads that completed (the final one included). */
  uploads: number;
  /** Pushes not made because the previous upload was still running. */
  skipped: number;
  /** Uploads that failed twice (the try and its one retry). */
  failed: number;
  /** Uploads that failed once and were tried again. */
  retried: number;
}

export interface UploadRecord {
  label: string;
  /** performance.now() at the start and end of the upload (its retry included). */
  start: number;
  end: number;
  ok: boolean;
}

/** Uploads parts of a local directory to a gs:// prefix, one upload at a time, in the background. */
export class RemoteSync {
  readonly counts: RemoteSyncCounts = { uploads: 0, skipped: 0, failed: 0, retried: 0 };
  readonly history: UploadRecord[] = [];
  private running: Promise<void> | undefined;

  constructor(
    readonly localDir: string,
    readonly remote: string,
    private readonly log: (message: string) => void = (m) => console.error(m),
  ) {}

  /** Logs a line about this sync. */
  report(message: string): void {
    this.log(`push to ${this.remote}: ${message}`);
  }

  /** Whether an upload is running now. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Resolves when no upload is running (training never waits on this; tests and finish() do). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Starts uploading `paths` (files or directories, relative to the local directory) and returns at
   * once. While an upload runs, the push is skipped and counted; returns whether it started.
   */
  push(paths: readonly string[], label: string): boolean {
    if (this.running) {
      this.counts.skipped++;
      this.report(`${label} skipped, the previous upload is still running (${this.counts.skipped} skipped so far)`);
      return false;
    }
    this.running = this.upload(paths, label).then(
      (ok) => {
        if (!ok) this.report(`${label} was not uploaded; training goes on, and the next push sends a newer one`);
      },
      () => {},
    );
    void this.running.finally(() => (this.running = undefined));
    return true;
  }

  /**
   * Waits for a running upload, then uploads `paths` and waits for that too. Throws when the upload
   * fails twice, saying where the outputs are and how to upload them by hand.
   */
  async finish(paths: readonly string[], label: string): Promise<void> {
    await this.idle();
    if (!(await this.upload(paths, label)))
      throw new Error(
        `push to ${this.remote}: the final upload failed twice; the outputs are in ${this.localDir} ` +
          `(upload them with \`gsutil -m cp -r ${this.localDir}/* ${this.remote}\`)`,
      );
  }

  /** One upload with one retry; true when it completed. */
  private async upload(paths: readonly string[], label: string): Promise<boolean> {
    const record: UploadRecord = { label, start: performance.now(), end: 0, ok: false };
    this.history.push(record);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const files = await this.expand(paths);
          const bytes = await uploadFiles(this.localDir, files, this.remote);
          this.counts.uploads++;
          record.ok = true;
          const seconds = (performance.now() - record.start) / 1000;
          this.report(`uploaded ${label} (${files.length} files, ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s)`);
          return true;
        } catch (e) {
          const why = (e as Error).message;
          if (attempt === 1) {
            this.counts.retried++;
            this.report(`uploading ${label} failed (${why}); trying once more`);
            continue;
          }
          this.counts.failed++;
          this.report(`uploading ${label} failed again (${why}); ${this.counts.failed} failed uploads so far`);
          return false;
        }
      }
    } finally {
      record.end = performance.now();
    }
  }

  /**
   * The files to send, relative to the local directory: each directory's files, with every
   * trainer_state.json last, so that a checkpoint whose upload was cut short does not look complete.
   */
  private async expand(paths: readonly string[]): Promise<string[]> {
    const files: string[] = [];
    for (const p of paths) {
      const full = join(this.localDir, p);
      const s = await stat(full).catch(() => undefined);
      if (!s) continue; // not written (yet): e.g. no runs/ before the first log
      if (s.isDirectory()) files.push(...(await listLocalFiles(full)).map((f) => joinPath(p, f)));
      else files.push(p);
    }
    const last = (f: string) => (basename(f) === "trainer_state.json" ? 1 : 0);
    return files.sort((a, b) => last(a) - last(b));
  }
}

/**
 * The Trainer callback of `kiln train --push-to gs://…`: every saved checkpoint is pushed in the
 * background (with metrics.jsonl and runs/); when fit() is done, the final model directory and the
 * last checkpoint are uploaded before it returns.
 */
export class PushToStorage implements Callback {
  readonly sync: RemoteSync;
  private view: TrainerView | undefined;

  constructor(
    readonly outputDir: string,
    remote: string,
    log?: (message: string) => void,
  ) {
    this.sync = new RemoteSync(outputDir, remote, log ?? ((m) => (this.view ? this.view.log(m) : console.error(m))));
  }

  onTrainStart(t: TrainerView): void {
    this.view = t;
  }

  onCheckpointSaved(_t: TrainerView, path: string): void {
    this.sync.push([relative(this.outputDir, path), "metrics.jsonl", "runs"], basename(path));
  }

  async onFitEnd(): Promise<void> {
    this.view = undefined; // the progress bar is gone: log straight to stderr
    await this.sync.finish(await finalOutputs(this.outputDir), "the final model and the last checkpoint");
    const c = this.sync.counts;
    this.sync.report(
      `${c.uploads} uploads, ${c.skipped} pushes skipped while an upload ran, ${c.failed} failed` +
        (c.retried ? ` (${c.retried} retried)` : ""),
    );
  }
}

/** Everything in the output directory but the checkpoints before the newest one. */
async function finalOutputs(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((n) => !n.startsWith("."));
  const steps = names.map(checkpointStep).filter((s) => s !== undefined);
  const newest = steps.length ? Math.max(...steps) : undefined;
  return names.filter((n) => checkpointStep(n) === undefined || checkpointStep(n) === newest).sort();
}
