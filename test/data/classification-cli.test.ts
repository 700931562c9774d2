import test from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { fixture } from "../helpers/fixtures.js";

const main = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const corpus = await makeTestCorpus(2, 500);

/** `kiln data prepare --task classification` with the test corpus's tokenizer. */
const prepareClassification = ["data", "prepare", "--task", "classification", "--tokenizer", corpus.tokenizerDir];

function kiln(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [main, ...args], (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

test("kiln data prepare --task classification prepares a Parquet file and prints the labels and the batch shapes", async () => {
  const out = join(corpus.dir, "cli-parquet");
  const r = await kiln(
    ...prepareClassification,
    "--input",
    fixture("classification/reviews.parquet"),
    "--text-column",
    "review",
    "--text-pair-column",
    "answer",
    "--label-column",
    "sentiment",
    "--out",
    out,
    "--max-length",
    "32",
    "--pad-to-multiple-of",
    "8",
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^train: 41 records in 1 shard at /m);
  assert.match(r.stdout, /^labels \(strings, ids in sorted order\): 0 negative \(14\), 1 positive \(27\)$/m);
  const m = JSON.parse(readFileSync(join(out, "train", "prepare.json"), "utf8"));
  const shapes = Object.keys(m.paddedLengths).length;
  assert.match(r.stdout, new RegExp(`^padded to multiples of 8: .* — ${shapes} batch shapes? \\(at most 4 at these settings\\)$`, "m"));
  assert.equal(m.settings.textPairColumn, "answer");
  assert.equal(m.settings.padToMultipleOf, 8);
});

test("--task classification: --labels for a validation split; bad records and settings name the line or the flag", async () => {
  const input = join(corpus.dir, "v.tsv");
  writeFileSync(input, "text\tlabel\nfine\tb\ngood\ta\n");
  const base = ["data", "prepare", "--task=classification", "--tokenizer", corpus.tokenizerDir, "--input", input, "--text-column", "text"];
  const ok = await kiln(
    ...base,
    "--label-column",
    "label",
    "--labels",
    "a,b,c",
    "--split",
    "validation",
    "--out",
    join(corpus.dir, "cli-v"),
  );
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^validation: 2 records/m);
  assert.match(ok.stdout, /0 a \(1\), 1 b \(1\), 2 c \(0\)/);
  const missing = await kiln(...base, "--label-column", "gold", "--out", join(corpus.dir, "cli-x"));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /v\.tsv: line 2, column "gold": is missing \(the record has "text", "label"\)/);
  const short = await kiln(...base, "--label-column", "label", "--out", join(corpus.dir, "cli-y"), "--max-length", "2");
  assert.equal(short.code, 2);
  assert.match(short.stderr, /--max-length "2": leaves no room for text/);
  const required = await kiln(...prepareClassification, "--input", input, "--out", "o");
  assert.equal(required.code, 2);
  assert.match(required.stderr, /--text-column/);
  // Without --task, the language-model table is used, which has no --text-column.
  const lm = await kiln("data", "prepare", "--tokenizer", corpus.tokenizerDir, "--input", input, "--text-column", "text", "--out", "o");
  assert.equal(lm.code, 2);
  assert.match(lm.stderr, /--text-column/);
});
