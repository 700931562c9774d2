// kiln train's signals. SIGTERM (what launchers, schedulers and preempted machines send; kiln launch
// forwards it to every rank), SIGINT (Ctrl+C) and the one --preemption-signal names (SIGUSR1, …) ask
// the Trainer to stop: the step in flight finishes, a checkpoint is written (and pushed with
// --push-to), and the command exits PREEMPTED_EXIT_CODE with one line naming the step, the checkpoint
// and the command that continues the run. A second signal quits at once while the step is still in
// flight, but waits while the checkpoint is written, so a hurried second signal never costs it.
import { constants } from "node:os";
import { UsageError } from "./args.js";
import type { StoppedRun } from "../train/trainer-options.js";

/** sysexits.h's EX_TEMPFAIL: the run was stopped with its state saved; continuing it later is expected. */
export const PREEMPTED_EXIT_CODE = 75;

const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/** What the handlers need of the Trainer. */
export interface StoppableRun {
  readonly stopRequested: { reason: string } | undefined;
  requestStop(request: { reason: string }): void;
  readonly saving: boolean;
  log(message: string): void;
}

/** --preemption-signal's value as a signal name (USR1 or SIGUSR1); one that cannot be caught is refused. */
export function preemptionSignalFlag(value: string | undefined): NodeJS.Signals | undefined {
  if (value === undefined) return undefined;
  const name = (value.toUpperCase().startsWith("SIG") ? value.toUpperCase() : `SIG${value.toUpperCase()}`) as NodeJS.Signals;
  if (!(name in constants.signals))
    throw new UsageError(`--preemption-signal must be a signal name such as SIGUSR1 or USR1, got "${value}"`);
  if (name === "SIGKILL" || name === "SIGSTOP")
    throw new UsageError(`--preemption-signal ${name} cannot be caught by any process: give the signal your scheduler sends before it`);
  return name;
}

/** Installs the stop handlers for `run` (SIGTERM, SIGINT and `extra`); they stay until the process exits. */
export function stopOnSignals(run: StoppableRun, extra?: NodeJS.Signals): void {
  const signals = [...new Set<NodeJS.Signals>([...STOP_SIGNALS, ...(extra ? [extra] : [])])];
  const onSignal = (signal: NodeJS.Signals) => {
    const name = signal === "SIGINT" ? "interrupt" : signal;
    if (!run.stopRequested) {
      run.requestStop({ reason: signal });
      run.log(`${name}: finishing this step and saving a checkpoint (signal again to quit now)`);
    } else if (run.saving) run.log(`${name}: the checkpoint is being written; stopping once it is`);
    else process.exit(128 + (constants.signals[signal] ?? 0));
  };
  for (const s of signals) process.on(s, onSignal);
}

/**
 * The stopped run's one line (printed by the main process) and its exit status (every process's):
 * `preempted at step N; checkpoint-N written; continue with kiln train … --resume`.
 */
export function reportStopped(stopped: StoppedRun, argv: readonly string[], main: boolean): void {
  process.exitCode = PREEMPTED_EXIT_CODE;
  if (!main) return;
  const name = stopped.checkpoint.slice(stopped.checkpoint.replace(/\/+$/, "").lastIndexOf("/") + 1);
  console.error(`preempted at step ${stopped.step}; ${name} written; continue with ${resumeCommand(argv)}`);
}

/** The command that continues the run: the same flags with --resume (and without --overwrite, which would replace it). */
export function resumeCommand(argv: readonly string[]): string {
  const kept = argv.filter((a) => a !== "--resume" && a !== "--overwrite");
  return ["kiln", "train", ...kept, "--resume"].map(shellWord).join(" ");
}

/** `word` as a POSIX shell reads it back: as it is when it has nothing the shell treats specially. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
