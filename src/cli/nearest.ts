// "Did you mean": the known word nearest to a mistyped one (a command, a subcommand, a flag), by edit
// distance, when it is near enough to be the likely intent.

/** Levenshtein distance (insertions, deletions, substitutions), with a swap of two neighbours as one edit. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  return d[a.length]![b.length]!;
}

/**
 * The candidate nearest to `word`, or undefined when none is close: within a third of the word's length
 * (at least 1, at most 3 edits), or the one candidate that starts with it (`--max` for `--max-steps`).
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  if (best && best.distance <= limit) return best.name;
  const extending = candidates.filter((c) => c.startsWith(word));
  return word.length >= 3 && extending.length === 1 ? extending[0] : undefined;
}

/** " (did you mean X?)" for the nearest candidate, or "" when none is close. */
export function didYouMean(word: string, candidates: readonly string[], show: (name: string) => string = (n) => n): string {
  const near = nearest(word, candidates);
  return near === undefined ? "" : ` (did you mean ${show(near)}?)`;
}
