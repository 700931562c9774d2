// CSV and TSV through csv-parse: the first line names the columns; quoted fields may hold the
// delimiter, quotes ("") and line breaks. Each row is placed by the line it starts on.
import { createReadStream } from "node:fs";
import { ClassificationInputError } from "./input-error.js";
import type { TableRow } from "./readers.js";

export async function* readDelimited(file: string, delimiter: "," | "\t"): AsyncGenerator<TableRow> {
  // Imported when a table is read: everything else Kiln does runs without the reader's package.
  const { parse, CsvError } = await import("csv-parse");
  const parser = createReadStream(file).pipe(
    parse({
      delimiter,
      columns: true,
      bom: true,
      info: true,
      skip_empty_lines: true,
      // A quote inside an unquoted field is text (`6" tall`), as Python's csv module reads it.
      relax_quotes: true,
    }),
  );
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      // info.lines is the line the record ends on; a quoted field may span lines, so count them back.
      const spanned = Object.values(record).reduce((n, v) => n + (v.match(/\n/g)?.length ?? 0), 0);
      yield { values: record, place: `line ${info.lines - spanned}` };
    }
  } catch (e) {
    if (!(e instanceof CsvError)) throw e;
    const line = (e as InstanceType<typeof CsvError> & { lines?: number }).lines;
    throw new ClassificationInputError(
      file,
      line === undefined ? "near the start" : `line ${line}`,
      undefined,
      `is not valid ${delimiter === "," ? "CSV" : "TSV"} (${e.message})`,
      `Write a header line naming the columns, then one record per line, separated by ${delimiter === "," ? "commas" : "tabs"}; ` +
        "quote fields that hold the delimiter or line breaks",
    );
  } finally {
    parser.destroy();
  }
}
