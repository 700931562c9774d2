// Carving validation and test splits out of one input: each row goes to a split by a hash of its
// index, so the assignment is deterministic for a seed and independent of how the work is spread.
import { hash32, uniform24, SPLIT_DOMAIN } from "../random.js";

export interface SplitFractions {
  /** Name of the split that gets the remaining rows (usually "train"). */
  main: string;
  validation: number;
  test: number;
  seed: number;
}

/** Names of the splits that receive rows, main split first. */
export function splitNames(f: SplitFractions): string[] {
  return [f.main, ...(f.validation > 0 ? ["validation"] : []), ...(f.test > 0 ? ["test"] : [])];
}

/** The split of the row with 0-based index `row` (counting rows that are kept, across all inputs). */
export function splitOf(row: number, f: SplitFractions): string {
  if (f.validation === 0 && f.test === 0) return f.main;
  const u = uniform24(hash32(f.seed >>> 0, SPLIT_DOMAIN, row >>> 0));
  if (u < f.validation) return "validation";
  if (u < f.validation + f.test) return "test";
  return f.main;
}
