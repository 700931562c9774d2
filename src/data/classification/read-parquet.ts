// Parquet through hyparquet, one row group at a time (so memory holds one group, not the file), and only
// the columns asked for. Each row is placed by its 0-based row index in the file. hyparquet decodes
// Snappy itself; GZIP and Brotli pages are inflated with node's zlib (and ZSTD where node's zlib has it).
import * as zlib from "node:zlib";
import type { Compressors } from "hyparquet";
import { ClassificationInputError } from "./input-error.js";
import type { TableRow } from "./readers.js";

export async function* readParquet(file: string, columns: readonly string[]): AsyncGenerator<TableRow> {
  // Imported when a table is read: everything else Kiln does runs without the reader's package.
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } = await import("hyparquet");
  const buffer = await asyncBufferFromFile(file);
  let metadata;
  try {
    metadata = await parquetMetadataAsync(buffer);
  } catch (e) {
    throw new ClassificationInputError(
      file,
      "its footer",
      undefined,
      `is not a Parquet file (${(e as Error).message})`,
      "Pass a .parquet file",
    );
  }
  const names = parquetSchema(metadata).children.map((c) => c.element.name);
  for (const column of columns)
    if (!names.includes(column))
      throw new ClassificationInputError(file, "the schema", column, `is not a column of the file (its columns: ${names.join(", ")})`, FIX);
  let start = 0;
  for (const group of metadata.row_groups) {
    const end = start + Number(group.num_rows);
    let rows;
    try {
      rows = await parquetReadObjects({ file: buffer, metadata, columns: [...columns], rowStart: start, rowEnd: end, compressors });
    } catch (e) {
      throw new ClassificationInputError(file, `rows ${start}–${end - 1}`, undefined, `cannot be read (${(e as Error).message})`, FIX);
    }
    for (let i = 0; i < rows.length; i++) yield { values: rows[i]!, place: `row ${start + i}` };
    start = end;
  }
}

const zstd = (zlib as { zstdDecompressSync?: (input: Uint8Array) => Uint8Array }).zstdDecompressSync;

const compressors: Compressors = {
  GZIP: (input) => zlib.gunzipSync(input),
  BROTLI: (input) => zlib.brotliDecompressSync(input),
  ...(zstd ? { ZSTD: (input: Uint8Array) => zstd(input) } : {}),
};

const FIX =
  "Pass a Parquet file with the text and label columns, uncompressed or compressed with Snappy, GZIP or Brotli" +
  (zstd ? " or ZSTD" : " (ZSTD needs node 22.15 or later)");
