// Progress of `data prepare` on stderr: a redrawn bar on a terminal, an occasional line otherwise
// (so logs of long runs show that work goes on without being flooded).

export interface ProgressSink {
  update(bytes: number, records: number): void;
  done(bytes: number, records: number): void;
}

const REDRAW_MS = 200;
const LOG_EVERY_MS = 10_000;

export class ProgressBar implements ProgressSink {
  private readonly start = performance.now();
  private last = 0;

  constructor(
    private readonly totalBytes: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update(bytes: number, records: number): void {
    const now = performance.now();
    if (now - this.last < (this.out.isTTY ? REDRAW_MS : LOG_EVERY_MS)) return;
    this.last = now;
    const line = this.line(bytes, records, now);
    if (this.out.isTTY) this.out.write(`\r${line}\x1b[K`);
    else this.out.write(`${line}\n`);
  }

  done(bytes: number, records: number): void {
    const line = this.line(bytes, records, performance.now());
    this.out.write(this.out.isTTY ? `\r${line}\x1b[K\n` : `${line}\n`);
  }

  private line(bytes: number, records: number, now: number): string {
    const seconds = (now - this.start) / 1000;
    const fraction = this.totalBytes > 0 ? Math.min(1, bytes / this.totalBytes) : 1;
    const width = 30;
    const filled = Math.round(fraction * width);
    const mbps = seconds > 0 ? bytes / 1e6 / seconds : 0;
    return (
      `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${(fraction * 100).toFixed(1)}%  ` +
      `${(bytes / 1e6).toFixed(1)}/${(this.totalBytes / 1e6).toFixed(1)} MB  ` +
      `${mbps.toFixed(1)} MB/s  ${records} records  ${seconds.toFixed(1)} s`
    );
  }
}
