import test from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
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
