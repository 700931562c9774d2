// The records a dataset skipped as bad (with ignoreErrors), by file. Each damaged place is counted once
// however many epochs read past it, in records (a lost framing loses the rest of its file), so the
// count says how much data training did not see.
/** A damaged place of a file: its offset, the records lost there, and the problem. */
export interface SkippedPlace {
  offset: number;
  records: number;
  problem: string;
}

/** The records a dataset skipped as bad (with ignoreErrors), by file, each damaged place counted once. */
export class SkippedRecords {
  private readonly byFile = new Map<string, Map<number, SkippedPlace>>();

  /** Records one skip; a place already recorded (a later epoch) is not counted again. */
  add(file: string, offset: number, records: number, problem: string): void {
    let places = this.byFile.get(file);
    if (!places) this.byFile.set(file, (places = new Map()));
    if (!places.has(offset)) places.set(offset, { offset, records, problem });
  }

  /** Records skipped in all files. */
  get total(): number {
    let n = 0;
    for (const places of this.byFile.values()) for (const p of places.values()) n += p.records;
    return n;
  }

  /** Files with skipped records, each with its count and places, in file order. */
  files(): { file: string; records: number; places: SkippedPlace[] }[] {
    return [...this.byFile.keys()].sort().map((file) => {
      const places = [...this.byFile.get(file)!.values()].sort((a, b) => a.offset - b.offset);
      return { file, records: places.reduce((n, p) => n + p.records, 0), places };
    });
  }

  /** One line per file, for the end of a run; empty when nothing was skipped. */
  summary(): string {
    if (this.total === 0) return "";
    const lines = this.files().map(
      (f) =>
        `  ${f.file}: ${f.records} record${f.records === 1 ? "" : "s"} ` +
        `(${f.places.map((p) => `byte ${p.offset}: ${p.problem}`).join("; ")})`,
    );
    return [
      `skipped ${this.total} bad record${this.total === 1 ? "" : "s"} in ${lines.length} file${lines.length === 1 ? "" : "s"}:`,
      ...lines,
    ].join("\n");
  }
}
