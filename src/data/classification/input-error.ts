// The error a bad input record gets: which file, which line (text formats) or row (Parquet), which
// column, what was wrong with it and what to do, so a dataset of a million rows can be fixed at the spot.

/** A bad record in a classification input: the file, line or row, column, what is wrong and how to fix it. */
export class ClassificationInputError extends Error {
  constructor(
    readonly file: string,
    /** "line 12" (JSON Lines, CSV, TSV: the line in the file) or "row 7" (Parquet: 0-based row). */
    readonly place: string,
    readonly column: string | undefined,
    readonly problem: string,
    fix: string,
  ) {
    super(`${file}: ${place}${column === undefined ? "" : `, column "${column}"`}: ${problem}. ${fix}`);
    this.name = "ClassificationInputError";
  }
}
