// JSON Lines: one JSON object per line. Blank lines are skipped; each row is placed by its line number.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { ClassificationInputError } from "./input-error.js";
import type { TableRow } from "./readers.js";

export async function* readJsonLines(file: string): AsyncGenerator<TableRow> {
  const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line.charCodeAt(0) === 0xfeff ? line.slice(1) : line);
      } catch (e) {
        throw new ClassificationInputError(file, `line ${lineNumber}`, undefined, `is not valid JSON (${(e as Error).message})`, FIX);
      }
      if (typeof value !== "object" || value === null || Array.isArray(value))
        throw new ClassificationInputError(file, `line ${lineNumber}`, undefined, `is ${kindOf(value)}, not a JSON object`, FIX);
      yield { values: value as Record<string, unknown>, place: `line ${lineNumber}` };
    }
  } finally {
    lines.close();
  }
}

const FIX = 'Write one JSON object per line, e.g. {"text": "…", "label": "spam"}';

function kindOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}
