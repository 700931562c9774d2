// Tables of labelled text, as rows of named values: JSON Lines, CSV, TSV and Parquet. The format is
// given or taken from the file's extension; each row carries where it came from, for error messages.
import { OptionError } from "../../core/option-error.js";
import { readDelimited } from "./read-csv.js";
import { readJsonLines } from "./read-jsonl.js";
import { readParquet } from "./read-parquet.js";

export const TABLE_FORMATS = ["jsonl", "csv", "tsv", "parquet"] as const;
export type TableFormat = (typeof TABLE_FORMATS)[number];

export interface TableRow {
  values: Record<string, unknown>;
  /** "line N" or "row N". */
  place: string;
}

const EXTENSIONS: Record<string, TableFormat> = {
  ".jsonl": "jsonl",
  ".ndjson": "jsonl",
  ".json": "jsonl",
  ".csv": "csv",
  ".tsv": "tsv",
  ".tab": "tsv",
  ".parquet": "parquet",
  ".pq": "parquet",
};

/** The format of `file` by its extension, or undefined when the extension does not say. */
export function formatFromExtension(file: string): TableFormat | undefined {
  const dot = file.lastIndexOf(".");
  return dot < 0 ? undefined : EXTENSIONS[file.slice(dot).toLowerCase()];
}

/** The format to read `file` in: `format` when given, else by its extension. */
export function resolveFormat(file: string, format: TableFormat | undefined, where: string): TableFormat {
  const found = format ?? formatFromExtension(file);
  if (found === undefined)
    throw new OptionError({
      where,
      option: "format",
      value: format,
      why: `is needed: the extension of ${file} does not say whether it is JSON Lines, CSV, TSV or Parquet`,
      fix: `Pass format: one of ${TABLE_FORMATS.join(", ")}`,
    });
  return found;
}

/** The rows of `file`; `columns` are the ones needed (Parquet reads only those). */
export function readTable(file: string, format: TableFormat, columns: readonly string[]): AsyncGenerator<TableRow> {
  switch (format) {
    case "jsonl":
      return readJsonLines(file);
    case "csv":
      return readDelimited(file, ",");
    case "tsv":
      return readDelimited(file, "\t");
    case "parquet":
      return readParquet(file, columns);
  }
}
