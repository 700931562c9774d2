// Worker thread of `data prepare`: opens its own encoder and turns batches of UTF-8 lines into token
// ids. Empty and whitespace-only lines produce no ids (they would be a bare [CLS] [SEP], a chunk of
// no text).
import { parentPort, workerData } from "node:worker_threads";
import { openEncoder, type Encoder } from "./text-encoder.js";
import type { EncodeReply, EncodeRequest, WorkerSetup } from "./pool.js";
import type { LineBatch } from "./task-builder.js";

const setup = workerData as WorkerSetup;
const encoderReady = openEncoder(setup.tokenizerDir);
// Surfaced with the first request; this keeps a load failure from crashing the thread before then.
encoderReady.catch(() => {});

const utf8 = new TextDecoder("utf-8", { fatal: true });

parentPort!.on("message", async (req: EncodeRequest) => {
  try {
    const encoder = await encoderReady;
    const { texts, lines } = decodeLines(req.batch);
    const encoded = await encoder.encodeBatchFlat(texts).catch(async (e: Error) => {
      throw new Error(`${req.batch.file}:${await failingLine(encoder, texts, lines)}: the tokenizer cannot encode this line: ${e.message}`);
    });
    // A compact copy: the encoder's buffer has spare capacity, and the copy is what gets transferred.
    const ids = encoded.ids.slice();
    const reply: EncodeReply = { id: req.id, ids, rows: texts.length };
    parentPort!.postMessage(reply, [ids.buffer as ArrayBuffer]);
  } catch (e) {
    const reply: EncodeReply = { id: req.id, error: (e as Error).message };
    parentPort!.postMessage(reply);
  }
});

/** The non-blank lines of a batch as strings, without line terminators, and their line numbers. */
function decodeLines(batch: LineBatch): { texts: string[]; lines: number[] } {
  let text: string;
  try {
    text = utf8.decode(batch.bytes);
  } catch {
    throw new Error(
      `${batch.file}:${badLine(batch)}: the line is not valid UTF-8 text; convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)`,
    );
  }
  // NUL is valid UTF-8, but only binary files hold it (the tokenizer trainer refuses it the same way).
  const nul = batch.bytes.indexOf(0);
  if (nul >= 0) {
    const line = batch.lines[batch.bytes.subarray(0, nul).filter((b) => b === 0x0a).length]!;
    throw new Error(`${batch.file}:${line}: a NUL byte: this looks like a binary file, not text; pass text files, one document per line`);
  }
  const all = text.split("\n");
  all.pop(); // every line ends with "\n", so the last element is empty
  const texts: string[] = [];
  const lines: number[] = [];
  all.forEach((line, i) => {
    const row = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (row.trim() === "") return;
    texts.push(row);
    lines.push(batch.lines[i]!);
  });
  return { texts, lines };
}

/** Line number of the first text the encoder fails on, found by encoding them one at a time. */
async function failingLine(encoder: Encoder, texts: string[], lines: number[]): Promise<number> {
  for (let i = 0; i < texts.length; i++) {
    try {
      await encoder.encodeBatchFlat([texts[i]!]);
    } catch {
      return lines[i]!;
    }
  }
  return lines[0] ?? 0;
}

/** Line number of the first line that is not valid UTF-8. */
function badLine(batch: LineBatch): number {
  let start = 0;
  for (let i = 0; i < batch.lines.length; i++) {
    const end = batch.bytes.indexOf(0x0a, start);
    try {
      utf8.decode(batch.bytes.subarray(start, end));
    } catch {
      return batch.lines[i]!;
    }
    start = end + 1;
  }
  return batch.lines[0] ?? 0;
}
