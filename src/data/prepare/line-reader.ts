// Reads text inputs (local or gs://) line by line as bytes. Lines stay UTF-8 until a worker decodes
// them, so the main thread neither decodes nor copies text into JS strings.
import { storageFor } from "../storage/index.js";

const NEWLINE = 0x0a;

/**
 * Calls `onLine(bytes, start, end, lineNumber)` for every line of every input, in order (1-based line
 * numbers; the newline itself is excluded). A UTF-8 byte order mark at the start of a file is skipped.
 * `onLine` may return a promise to slow reading down. Reports bytes read to `onBytes`.
 */
export async function forEachLine(
  file: string,
  onBytes: (n: number) => void,
  onLine: (bytes: Uint8Array, start: number, end: number, line: number) => void | Promise<void>,
): Promise<void> {
  let carry: Uint8Array = new Uint8Array(0);
  let line = 0;
  let first = true;
  for await (const chunk of storageFor(file).read(file)) {
    onBytes(chunk.length);
    let buf: Uint8Array = chunk;
    if (carry.length > 0) {
      buf = new Uint8Array(carry.length + chunk.length);
      buf.set(carry);
      buf.set(chunk, carry.length);
    }
    let start = 0;
    if (first && buf.length >= 3) {
      if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) start = 3;
      first = false;
    }
    for (let nl = buf.indexOf(NEWLINE, start); nl >= 0; nl = buf.indexOf(NEWLINE, start)) {
      const wait = onLine(buf, start, nl, ++line);
      if (wait) await wait;
      start = nl + 1;
    }
    carry = buf.slice(start);
  }
  if (carry.length > 0) {
    const start = first && carry[0] === 0xef && carry[1] === 0xbb && carry[2] === 0xbf ? 3 : 0;
    await onLine(carry, start, carry.length, ++line);
  }
}
