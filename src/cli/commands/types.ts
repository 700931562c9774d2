/** One `kiln` subcommand: its name, a one-line summary for `kiln --help`, and its entry point. */
export interface Command {
  name: string;
  summary: string;
  run(argv: string[]): Promise<void> | void;
}
