#!/usr/bin/env node
// `kiln`: the command-line entry. Thin by design: it finds the subcommand and hands it the flags.
import { ortExecutor } from "../index.js"; // registers the executors (the default device first)
import { COMMANDS } from "./commands/index.js";
import { UsageError } from "./args.js";
import { kilnVersion } from "./version.js";
import { TrainingDivergedError } from "../train/divergence.js";
import { OutputDirInUseError } from "../train/output-dir.js";
import { OptionError } from "../core/option-error.js";
import { currentCommand, flagOf, inFlagWords, optionErrorMessage } from "./flags.js";
import { didYouMean } from "./nearest.js";
import { currentProcessGroup, rankPrefix } from "../distribute/multi-process.js";

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "kiln — train transformer language models end to end from TypeScript",
    "",
    "Usage: kiln <command> [flags]    (kiln <command> --help for its flags)",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Global flags: --help, --version",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(help());
    return 0;
  }
  if (name === "--version" || name === "-v") {
    console.log(kilnVersion());
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const near = didYouMean(
      name,
      COMMANDS.map((c) => c.name),
      (n) => `"${n}"`,
    );
    console.error(`kiln: unknown command "${name}"${near}\n\n${help()}`);
    return 2;
  }
  // The CPU executor reads KILN_CPU_THREADS and KILN_CPU_DEVICES lazily; reading them here makes a bad
  // value every command's one-line error before any work starts.
  void ortExecutor.threads;
  void ortExecutor.devices();
  await command.run(rest);
  return 0;
}

// A reader that stops early (`kiln devices | head -2`) closes the pipe: the output it wanted is written,
// so the command ends quietly, as Unix tools do, instead of dying on an unhandled EPIPE.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code !== "EPIPE") throw err;
  process.exit(process.exitCode ?? 0);
});

main(process.argv.slice(2)).then(
  (code) => {
    // A command that set its own exit status keeps it (kiln launch: a rank's failure, 128 + a signal's number).
    process.exitCode ??= code;
  },
  (err: unknown) => {
    // One of several processes (mpirun): ranks other than 0 say which they are.
    const prefix = rankPrefix(currentProcessGroup());
    // Exit codes as README.md's table has them: 2 for what was refused before any work (a bad flag or
    // value, a setting the library refused, an output directory that holds another run), 3 for a
    // diverged run, 1 for the rest.
    if (err instanceof UsageError) {
      console.error(prefix + err.message);
      process.exitCode = 2;
    } else if (err instanceof OptionError) {
      console.error(prefix + optionErrorMessage(err));
      process.exitCode = 2;
    } else if (err instanceof OutputDirInUseError) {
      const flag = (option: string) => (flagOf(option) ? `--${flagOf(option)}` : option);
      console.error(`${prefix}kiln ${currentCommand() ?? "train"}: ${OutputDirInUseError.describe(err.dir, err.entries, flag)}`);
      process.exitCode = 2;
    } else if (err instanceof TrainingDivergedError) {
      // Its advice names library options (clipNorm): the command's flags here.
      console.error(`${prefix}kiln: ${inFlagWords(err.message)}`);
      process.exitCode = 3;
    } else {
      console.error(prefix + (err instanceof Error ? (process.env.KILN_DEBUG ? err.stack : `kiln: ${err.message}`) : String(err)));
      process.exitCode = 1;
    }
  },
);
