// Collects what a piece of code writes with console.error (the trainer's warnings go there when progress
// is off), so a test can read the warnings a run gave.

/** Runs `fn` with console.error collected, one line per call; console.error is restored however it ends. */
export async function stderrOf<T>(fn: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    return { value: await fn(), lines };
  } finally {
    console.error = original;
  }
}
