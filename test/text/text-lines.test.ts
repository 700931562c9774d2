// Corpus reading: plain text and JSON Lines, gzip or not, streamed in chunks, with errors that point
// at the file and line.
import test from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { readTextLines } from "../../src/text/index.js";
import { tempDir } from "../helpers/temp-dir.js";

const dir = tempDir("kiln-text-lines-");

async function collect(paths: string[], textField?: string): Promise<string[]> {
  const out: string[] = [];
  for await (const line of readTextLines(paths, { textField })) out.push(line);
  return out;
}

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

test("plain text: one document per line, CRLF accepted, no phantom line after the last newline", async () => {
  assert.deepEqual(await collect([file("a.txt", "first\r\n\nthird\n")]), ["first", "", "third"]);
  assert.deepEqual(await collect([file("b.txt", "no final newline")]), ["no final newline"]);
});

test("several files are read in order", async () => {
  assert.deepEqual(await collect([file("c.txt", "one\ntwo\n"), file("d.txt", "three\n")]), ["one", "two", "three"]);
});

test("lines longer than a read chunk, with multi-byte characters across chunk edges, arrive whole", async () => {
  const long = "é😀ab".repeat(60_000);
  assert.deepEqual(await collect([file("long.txt", `${long}\nshort\n${long}`)]), [long, "short", long]);
});

test("JSON Lines: the document comes from --text-field; blank lines are skipped", async () => {
  const jsonl = `{"text": "hello there", "id": 1}\n\n{"id": 2, "text": "line\\nbreak"}\n`;
  assert.deepEqual(await collect([file("e.jsonl", jsonl)], "text"), ["hello there", "line\nbreak"]);
});

test("gzip is recognized by its bytes, for plain text and JSON Lines alike", async () => {
  assert.deepEqual(await collect([file("f.txt", gzipSync("zipped\nlines\n"))]), ["zipped", "lines"]);
  assert.deepEqual(await collect([file("g.jsonl.gz", gzipSync(`{"t": "a"}\n{"t": "b"}\n`))], "t"), ["a", "b"]);
});

test("bad input names the file, the line and the fix", async () => {
  await assert.rejects(collect([]), /no input files/);
  await assert.rejects(collect([join(dir, "missing.txt")]), /cannot read input .*missing\.txt: no such file/);
  await assert.rejects(collect([dir]), /it is a directory/);
  const zipped = gzipSync("x".repeat(100_000));
  await assert.rejects(
    collect([file("cut.gz", zipped.subarray(0, zipped.length / 2))]),
    /cut\.gz: it looks gzip-compressed but does not decompress/,
  );
  await assert.rejects(collect([file("bad.jsonl", `{"text": "ok"}\n{oops}\n`)], "text"), /bad\.jsonl:2: not valid JSON/);
  await assert.rejects(collect([file("field.jsonl", `{"body": "x"}\n`)], "text"), /field\.jsonl:1: the record has no string field "text"/);
  await assert.rejects(
    collect([file("num.jsonl", `{"text": 3}\n`)], "text"),
    /num\.jsonl:1: the record has no string field "text" \(found number\)/,
  );
});

test("a binary or non-UTF-8 file is refused with the file, line and byte offset, before a tokenizer learns from it", async () => {
  const { trainUnigram } = await import("../../src/text/index.js");
  const binary = file("binary.bin", Buffer.concat([Buffer.from("text first\n"), Buffer.alloc(64), Buffer.from("\nmore\n")]));
  const nul = `${binary}:2: (the line starts at byte offset 11) a NUL byte at byte offset 11: this looks like a binary file, not text`;
  await assert.rejects(collect([binary]), (e: Error) => e.message.startsWith(nul));
  await assert.rejects(trainUnigram(readTextLines([binary]), { vocabSize: 50 }), (e: Error) => e.message.startsWith(nul));
  const latin1 = file("latin1.txt", Buffer.concat([Buffer.from("ok\nsecond ok\ncaf"), Buffer.from([0xe9]), Buffer.from("\n")]));
  await assert.rejects(
    collect([latin1]),
    (e: Error) =>
      e.message ===
      `${latin1}:3: (the line starts at byte offset 13) the line is not valid UTF-8 text; ` +
        `convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)`,
  );
  const zipped = file("binary.gz", gzipSync(Buffer.concat([Buffer.from("a\n"), Buffer.from([0, 1, 2])])));
  await assert.rejects(
    collect([zipped]),
    /binary\.gz:2: \(the line starts at byte offset 2 of the decompressed text\) a NUL byte at byte offset 2/,
  );
});
