// A console progress bar: step, loss, tokens/s and ETA, with compile time reported apart from step
// time (the first steps of a compiled trainer are compilation, not training speed). On a terminal it
// redraws one line; otherwise (CI logs, pipes) it prints a line every `everySeconds`.

export interface ProgressState {
  step: number;
  totalSteps: number;
  loss?: number;
  tokensPerSecond?: number;
  compileSeconds?: number;
  extra?: string;
}

function fmtDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return "?";
  const h = Math.floor(s / 3600),
    m = Math.floor((s % 3600) / 60),
    sec = Math.floor(s % 60);
  return h ? `${h}h${String(m).padStart(2, "0")}m` : m ? `${m}m${String(sec).padStart(2, "0")}s` : `${sec}s`;
}

export class ProgressBar {
  private readonly tty: boolean;
  private lastPrint = 0;
  private readonly started = performance.now();
  private trainingStarted: number | undefined;
  private stepsAtTrainingStart = 0;

  constructor(
    private readonly label: string,
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly everySeconds = 10,
  ) {
    this.tty = Boolean(out.isTTY) && !process.env.CI;
  }

  /** Call once the first (compiling) step is done, so the ETA counts training steps only. */
  markTrainingStart(step: number): void {
    this.trainingStarted = performance.now();
    this.stepsAtTrainingStart = step;
  }

  render(s: ProgressState): string {
    const width = 24;
    const frac = s.totalSteps > 0 ? Math.min(1, s.step / s.totalSteps) : 0;
    const bar = "█".repeat(Math.round(frac * width)).padEnd(width, "·");
    let eta = NaN;
    if (this.trainingStarted !== undefined && s.step > this.stepsAtTrainingStart) {
      const per = (performance.now() - this.trainingStarted) / 1000 / (s.step - this.stepsAtTrainingStart);
      eta = per * (s.totalSteps - s.step);
    }
    const parts = [
      `${this.label} ${bar} ${s.step}/${s.totalSteps}`,
      s.loss !== undefined ? `loss ${s.loss.toFixed(4)}` : "",
      s.tokensPerSecond !== undefined ? `${Math.round(s.tokensPerSecond)} tok/s` : "",
      `ETA ${fmtDuration(eta)}`,
      s.compileSeconds !== undefined ? `compile ${s.compileSeconds.toFixed(1)}s` : "",
      s.extra ?? "",
    ];
    return parts.filter(Boolean).join(" | ");
  }

  update(s: ProgressState, force = false): void {
    const now = performance.now();
    if (this.tty) {
      this.out.write(`\r${this.render(s)}\x1b[K`);
    } else if (force || now - this.lastPrint > this.everySeconds * 1000) {
      this.out.write(this.render(s) + "\n");
      this.lastPrint = now;
    }
  }

  /** Prints a message on its own line without garbling the bar. */
  log(message: string): void {
    this.out.write(this.tty ? `\r\x1b[K${message}\n` : `${message}\n`);
  }

  done(s: ProgressState): void {
    this.update(s, true);
    if (this.tty) this.out.write("\n");
    this.log(`${this.label} finished in ${fmtDuration((performance.now() - this.started) / 1000)}`);
  }
}
