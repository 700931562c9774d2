import test from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeTestCorpus } from "../helpers/sotu-slice.js";

const main = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const fixture = await makeTestCorpus(3);

function kiln(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [main, ...args], (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

test("kiln data prepare writes shards and reports them", async () => {
  const out = join(fixture.dir, "cli-out");
  const r = await kiln(
    "data",
    "prepare",
    "--tokenizer",
    fixture.tokenizerDir,
    "--input",
    fixture.corpus,
    "--out",
    out,
    "--max-length",
    "64",
    "--shard-size",
    "50",
    "--quiet",
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^train: \d+ records in \d+ shards at /m);
  const records = Number(/^train: (\d+) records/m.exec(r.stdout)![1]);
  const files = readdirSync(join(out, "train")).filter((n) => n.endsWith(".tfrecord"));
  assert.equal(files.length, Math.ceil(records / 50));
  assert.equal(r.stderr, "");
});

test("kiln data prepare names a bad flag and exits with status 2", async () => {
  const r = await kiln(
    "data",
    "prepare",
    "--tokenizer",
    fixture.tokenizerDir,
    "--input",
    fixture.corpus,
    "--out",
    join(fixture.dir, "x"),
    "--shard-size",
    "0",
  );
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--shard-size must be an integer ≥ 1, got "0"/);
  const missing = await kiln("data", "prepare", "--input", fixture.corpus, "--out", join(fixture.dir, "x"));
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--tokenizer is required/);
  const unknown = await kiln("data", "shuffle");
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown subcommand "shuffle"/);
});

test("a re-run of kiln data prepare says which damaged shards it rewrote, and why", async () => {
  const out = join(fixture.dir, "rewrite-out");
  const args = ["data", "prepare", "--tokenizer", fixture.tokenizerDir, "--input", fixture.corpus, "--out", out];
  const more = ["--max-length", "64", "--shard-size", "50", "--quiet"];
  const first = await kiln(...args, ...more);
  assert.equal(first.code, 0, first.stderr);
  assert.doesNotMatch(first.stdout, /rewrote/);
  const dir = join(out, "train");
  const [flipped, cut] = readdirSync(dir)
    .filter((n) => n.endsWith(".tfrecord"))
    .sort()
    .map((n) => join(dir, n));
  const bytes = readFileSync(flipped!);
  bytes[bytes.length - 10]! ^= 0xff; // inside the last record's data
  writeFileSync(flipped!, bytes);
  truncateSync(cut!, 100);
  const again = await kiln(...args, ...more);
  assert.equal(again.code, 0, again.stderr);
  assert.match(
    again.stdout,
    new RegExp(
      `^train: rewrote 2 damaged shards an earlier run left:\n` +
        `  ${flipped}: bad TFRecord at byte offset \\d+: data checksum mismatch \\(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\\)\n` +
        `  ${cut}: bad TFRecord at byte offset 0: truncated record: [^\n]*\n` +
        `train: \\d+ records in \\d+ shards at [^\n]* \\(\\d+ already present\\)`,
      "m",
    ),
  );
  assert.deepEqual(readFileSync(flipped!).length, bytes.length, "rewritten whole");
});
