// The Node options a worker thread starts with. A worker inherits the process's execArgv, and Node refuses
// --input-type for anything but a main script given as a string: under `node --input-type=module -e …`
// every worker failed to start, and a caller blocked waiting for one (a synchronous read of a result)
// waited forever.

/** The process's Node options without the ones a worker's file entry point cannot start with. */
export function workerExecArgv(): string[] {
  const argv = process.execArgv,
    kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--input-type")
      i++; // and its value
    else if (!argv[i]!.startsWith("--input-type=")) kept.push(argv[i]!);
  }
  return kept;
}
