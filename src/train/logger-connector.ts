// The Trainer's loggers: the ones given (TrainerOptions.loggers) or the defaults (metrics.jsonl and
// TensorBoard's runs/ in the output directory), written by the main process only. A logger that returns
// a promise is awaited at the end, so a slow destination never holds up a step.
import { join } from "node:path";
import { OptionError } from "../core/option-error.js";
import type { Metrics } from "./callbacks.js";
import { JsonLinesLogger, type Logger } from "./loggers.js";
import { TensorBoardLogger } from "./tensorboard.js";

export class LoggerConnector {
  private loggers: Logger[] = [];
  private pending: Promise<void>[] = [];
  private failure: unknown;

  constructor(private readonly given: Logger[] | undefined) {
    const bad = given === undefined ? -1 : Array.isArray(given) ? given.findIndex((l) => typeof l?.logMetrics !== "function") : 0;
    if (bad >= 0)
      throw new OptionError({
        where: "Trainer",
        option: Array.isArray(given) ? `loggers[${bad}]` : "loggers",
        value: Array.isArray(given) ? given[bad] : given,
        why: "is not a Logger (an object with a logMetrics(step, metrics) method)",
        fix: "Give a list of loggers, such as [new JsonLinesLogger(path), new TensorBoardLogger(dir)], or [] to log nothing",
      });
  }

  /** The default loggers of a run in `outputDir`, made when a run starts (their files appear then). */
  static defaults(outputDir: string): Logger[] {
    return [new JsonLinesLogger(join(outputDir, "metrics.jsonl")), new TensorBoardLogger(join(outputDir, "runs"))];
  }

  /**
   * A resumed run drops what its loggers hold past the checkpoint's step (-1: everything, a resume that
   * found no checkpoint); before start(), so the defaults' files are rewound before they are opened.
   */
  async rewind(outputDir: string, lastStep: number): Promise<string[]> {
    const lines: string[] = [];
    for (const l of this.given ?? [new JsonLinesLogger(join(outputDir, "metrics.jsonl"))]) {
      const said = await l.rewind?.(lastStep);
      if (said) lines.push(said);
    }
    return lines;
  }

  start(outputDir: string, hyperparams: Record<string, unknown>): void {
    this.loggers = this.given ?? LoggerConnector.defaults(outputDir);
    for (const l of this.loggers) this.track(l.logHyperparams?.(hyperparams));
  }

  logMetrics(step: number, metrics: Metrics): void {
    for (const l of this.loggers) this.track(l.logMetrics(step, metrics));
  }

  async finalize(status: "success" | "stopped" | "failed"): Promise<void> {
    const loggers = this.loggers;
    this.loggers = [];
    await Promise.all(this.pending);
    this.pending = [];
    for (const l of loggers) await l.finalize?.(status);
    if (this.failure !== undefined) throw this.failure;
  }

  /** A logger's write in flight: its failure is kept for finalize() to throw (never an unhandled rejection). */
  private track(result: void | Promise<void> | undefined): void {
    if (result) this.pending.push(result.catch((e: unknown) => void (this.failure ??= e)));
  }
}
