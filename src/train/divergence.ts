// Watching a run for divergence from the few scalars the host reads after every compiled call anyway
// (the loss and the compiled step's non-finite flag), so it costs no extra synchronization. A diverged
// run stops with the step, the last finite loss and what to change, and nothing from the diverged state
// is ever saved (Keras' TerminateOnNaN, with the reason spelled out).

/** Steps in a row that "skip" may drop before the run is stopped anyway. */
export const MAX_SKIPPED_IN_A_ROW = 10;
/** f16 overflows in a row (each halving the loss scale) after which loss scaling is not going to recover. */
export const MAX_OVERFLOWS_IN_A_ROW = 50;
/** A loss this many times ln(outcomes), the loss of a uniform guess, means the run is diverging. */
const DIVERGING_LOSS_FACTOR = 3;

/** Thrown when a run diverges (a non-finite or exploding loss): the step, the last finite loss, and what to change. */
export class TrainingDivergedError extends Error {
  constructor(
    message: string,
    readonly step: number,
  ) {
    super(message);
    this.name = "TrainingDivergedError";
  }
}

export class DivergenceWatch {
  private lastFinite: { step: number; loss: number } | undefined;
  private skippedInRow = 0;
  private overflowsInRow = 0;
  private warned = false;
  /** Steps dropped by the "skip" policy so far. */
  skippedTotal = 0;

  constructor(
    private readonly o: {
      /** What a uniform guess chooses among: a language model's vocabulary of tokens, a classifier's classes. */
      outcomes: { count: number; noun: string };
      learningRate: number;
      policy: "stop" | "skip";
      /** The clipping norm, when gradients are clipped already. */
      clipNorm?: number;
      /** Lightning's precision name ("16-mixed" gets the advice to use bf16). */
      precision?: string;
    },
  ) {}

  private hint(): string {
    const ways = [`lower the learning rate (it is ${this.o.learningRate})`];
    if (!this.o.clipNorm) ways.push("clip gradients (clipNorm 1.0)");
    if (this.o.precision === "16-mixed") ways.push('use precision "bf16-mixed" instead of 16-mixed');
    return ways.length === 1 ? ways[0]! : `${ways.slice(0, -1).join(", ")} or ${ways.at(-1)}`;
  }

  private last(): string {
    return this.lastFinite
      ? `the last finite loss was ${this.lastFinite.loss.toPrecision(5)} at step ${this.lastFinite.step}`
      : "no step had a finite loss";
  }

  /**
   * Takes one step's loss and flags. Returns a warning to print, if any; throws TrainingDivergedError
   * when the run must stop.
   */
  step(step: number, loss: number, nonFinite: boolean, overflowSkipped: boolean): string | undefined {
    if (nonFinite) {
      const what = Number.isFinite(loss) ? `the gradients are not finite (loss ${loss.toPrecision(5)})` : `the loss is ${loss}`;
      if (this.o.policy === "stop")
        throw new TrainingDivergedError(
          `training diverged at step ${step}: ${what}; ${this.last()}. Nothing from the diverged state was saved. ` +
            `To fix it, ${this.hint()}, then start again or resume from the last checkpoint.`,
          step,
        );
      this.skippedTotal++;
      if (++this.skippedInRow >= MAX_SKIPPED_IN_A_ROW)
        throw new TrainingDivergedError(
          `training diverged: ${MAX_SKIPPED_IN_A_ROW} steps in a row up to step ${step} ` +
            `had non-finite losses or gradients and were skipped; ` +
            `${this.last()}. To fix it, ${this.hint()}.`,
          step,
        );
      return `step ${step}: ${what}; the update was skipped (${this.skippedTotal} skipped so far)`;
    }
    this.skippedInRow = 0;
    if (overflowSkipped) {
      if (++this.overflowsInRow >= MAX_OVERFLOWS_IN_A_ROW)
        throw new TrainingDivergedError(
          `training diverged at step ${step}: f16 gradients overflowed at ${MAX_OVERFLOWS_IN_A_ROW} steps in a row although the loss ` +
            `scale was halved each time; ${this.last()}. To fix it, ${this.hint()}.`,
          step,
        );
      return undefined;
    }
    this.overflowsInRow = 0;
    this.lastFinite = { step, loss };
    if (!this.warned && this.diverging(loss)) {
      this.warned = true;
      return `warning: step ${step}: the loss ${loss.toPrecision(5)} is ${this.farAbove()}: training is diverging; ${this.hint()}`;
    }
    return undefined;
  }

  private diverging(loss: number): boolean {
    return loss > DIVERGING_LOSS_FACTOR * Math.log(this.o.outcomes.count);
  }

  private farAbove(): string {
    const { count, noun } = this.o.outcomes;
    return `far above ${Math.log(count).toFixed(2)}, the loss of a uniform guess over ${count} ${noun}`;
  }

  /** At the end of a run: a warning when its last loss still says it diverged (the model it saved is of no use). */
  finish(): string | undefined {
    if (!this.lastFinite || !this.diverging(this.lastFinite.loss)) return undefined;
    return (
      `warning: the run ended with a loss of ${this.lastFinite.loss.toPrecision(5)} at step ${this.lastFinite.step}, ${this.farAbove()}: ` +
      `it diverged and its model has learned nothing useful; ${this.hint()}`
    );
  }
}
