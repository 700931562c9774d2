// A training time budget (TrainerOptions.maxTime, Lightning's max_time): the option read as seconds, and
// the run's training clock, which a checkpoint records so that a resumed run goes on from the time spent
// (and its learning-rate schedule, which follows the fraction of the budget spent, from where it was).
import { OptionError } from "../core/option-error.js";

/** Seconds per unit of a duration string ("90s", "5m", "1h30m", "2d"). */
const UNITS: Record<string, number> = { d: 86_400, h: 3_600, m: 60, s: 1 };

/**
 * TrainerOptions.maxTime in seconds: a number of seconds, or a duration string — "300", "90s", "5m",
 * "1h30m", "1.5h", or Lightning's "DD:HH:MM:SS" (also "HH:MM:SS", "MM:SS"). Refuses anything else,
 * and a budget that is not above 0, naming `maxTime`.
 */
export function budgetSeconds(maxTime: unknown, where = "Trainer"): number {
  const refuse = (why: string): never => {
    throw new OptionError({
      where,
      option: "maxTime",
      value: maxTime,
      why,
      fix: 'Give a number of seconds (300) or a duration: "90s", "5m", "1h30m", or "DD:HH:MM:SS" as "00:01:30:00"',
    });
  };
  let seconds: number;
  if (typeof maxTime === "number") seconds = maxTime;
  else if (typeof maxTime === "string") seconds = parseDuration(maxTime.trim()) ?? refuse("is not a duration");
  else return refuse("is not a number of seconds or a duration string");
  if (!Number.isFinite(seconds) || seconds <= 0) refuse("must be a finite time above 0");
  return seconds;
}

function parseDuration(text: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  if (/^\d+(:\d+){1,3}$/.test(text)) {
    // Lightning's "DD:HH:MM:SS", right-aligned: "MM:SS" and "HH:MM:SS" too.
    const parts = text.split(":").map(Number).reverse();
    if (parts.slice(0, 2).some((p) => p >= 60) || (parts.length === 4 && parts[2]! >= 24)) return undefined;
    return parts.reduce((sum, p, i) => sum + p * [1, 60, 3_600, 86_400][i]!, 0);
  }
  const units = /^(?:\d+(?:\.\d+)?[dhms])+$/.test(text) ? [...text.matchAll(/(\d+(?:\.\d+)?)([dhms])/g)] : [];
  if (units.length === 0) return undefined;
  // Each unit once, largest first ("1h30m", not "30m1h" or "1m1m").
  const order = units.map((u) => "dhms".indexOf(u[2]!));
  if (order.some((o, i) => i > 0 && o <= order[i - 1]!)) return undefined;
  return units.reduce((sum, u) => sum + Number(u[1]) * UNITS[u[2]!]!, 0);
}

/** "300 s", "1,800 s": a budget or time spent as the run prints it. */
export function formatSeconds(seconds: number): string {
  return `${Math.round(seconds).toLocaleString("en-US")} s`;
}

/**
 * The training time of a run: what its checkpoint recorded (0 for a fresh run) plus the time since this
 * fit started, read from `clock` (seconds; TrainerOptions.clock, by default the monotonic clock).
 */
export class TrainingClock {
  private readonly startedAt: number;
  private stoppedAt: number | undefined;
  /** Seconds the last evaluation took: what the final one is expected to take (undefined before any). */
  lastEvalSeconds: number | undefined;

  constructor(
    private readonly clock: () => number,
    /** Training time spent before this fit (a resumed run's checkpoint). */
    readonly before: number,
    /** The budget in seconds (absent: the time is only recorded). */
    readonly budget?: number,
  ) {
    this.startedAt = clock();
  }

  /** Training seconds spent, this fit and the ones it resumed. */
  elapsed(): number {
    return this.before + ((this.stoppedAt ?? this.clock()) - this.startedAt);
  }

  /** Runs an evaluation, timing it (lastEvalSeconds). */
  async timeEvaluation<T>(evaluate: () => Promise<T>): Promise<T> {
    const started = this.clock();
    try {
      return await evaluate();
    } finally {
      this.lastEvalSeconds = this.clock() - started;
    }
  }

  /** The fit loop is over: what comes after (the final evaluation and save) is not training time. */
  stop(): void {
    this.stoppedAt ??= this.clock();
  }

  /** The fraction of the budget spent (0 → 1; past 1 at the end), or undefined without a budget. */
  fraction(elapsed = this.elapsed()): number | undefined {
    return this.budget === undefined ? undefined : elapsed / this.budget;
  }
}

/** The default clock: seconds of the monotonic clock. */
export const monotonicSeconds = (): number => performance.now() / 1000;
