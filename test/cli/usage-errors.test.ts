// What `kiln` says to a mistyped command or flag, a negative value, a text without a mask, and where it
// keeps quiet: exit codes as README.md's table has them (2: refused before any work), the nearest
// command or flag suggested, --max-length taken from the data's prepare.json, and the "no GPU/TPU
// plugin" notice only with --verbose (or --accelerator).
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { writeOneLayerConfig } from "../helpers/tiny-config.js";
import { discoverPjrtPlugin } from "../../src/exec/xla/index.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const root = tempDir("kiln-cli-usage-");
const corpus = await makeTestCorpus(2, 300);
const config = writeOneLayerConfig(join(root, "config.json"));
const data = join(root, "data");

function kiln(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const NOTICE = /no GPU\/TPU PJRT plugin found/;
const train = (out: string, ...more: string[]) =>
  kiln(
    "train",
    "--tokenizer",
    corpus.tokenizerDir,
    "--train-data",
    join(data, "train"),
    "--model-config",
    config,
    "--output-dir",
    join(root, out),
    "--per-replica-batch-size",
    "2",
    "--max-steps",
    "1",
    "--quiet",
    ...more,
  );

test("a mistyped command, subcommand or flag is refused (exit 2) with the nearest one suggested", () => {
  let r = kiln("trian");
  assert.equal(r.code, 2);
  assert.match(r.err, /^kiln: unknown command "trian" \(did you mean "train"\?\)\n/);
  r = kiln("train", "--max-step", "2");
  assert.equal(r.code, 2);
  assert.equal(r.err, "kiln train: unknown flag --max-step (did you mean --max-steps?)\nRun `kiln train --help` for the flags it takes.\n");
  r = kiln("data", "prepar");
  assert.equal(r.code, 2);
  assert.match(r.err, /^kiln data: unknown subcommand "prepar" \(did you mean "prepare"\?\)/);
  r = kiln("generate", "--top_k", "3");
  assert.match(r.err, /^kiln generate: unknown flag --top_k \(did you mean --top-k\?\)/);
});

test("--learning-rate -1 is read as a value and refused by its check, not as an ambiguous flag", () => {
  const r = kiln("train", "--learning-rate", "-1", "--tokenizer", corpus.tokenizerDir, "--train-data", data, "--output-dir", root);
  assert.equal(r.code, 2);
  assert.equal(r.err.trim(), "--learning-rate must be ≥ 0, got -1");
  assert.doesNotMatch(r.err, /ambiguous/);
});

test("kiln train takes --max-length from the data's prepare.json, refuses another, and says nothing of plugins unasked", async () => {
  const prepared = kiln(
    "data",
    "prepare",
    "--tokenizer",
    corpus.tokenizerDir,
    "--input",
    corpus.corpus,
    "--out",
    data,
    "--max-length",
    "16",
  );
  assert.equal(prepared.code, 0, prepared.err);
  let r = train("out", "--max-length", "12");
  assert.equal(r.code, 2, r.err);
  assert.equal(
    r.err.trim(),
    `kiln train: --max-length "12": does not match the data: ${join(data, "train", "prepare.json")} says it was prepared with ` +
      `--max-length 16. Prepare the data with --max-length 12, or leave --max-length out to train on records of 16`,
  );
  // Data prepared with another tokenizer (of the same size, so the model fits it) is refused before any work.
  const other = await makeTestCorpus(3, 300);
  r = kiln(
    "train",
    "--tokenizer",
    other.tokenizerDir,
    "--train-data",
    join(data, "train"),
    "--model-config",
    config,
    "--output-dir",
    join(root, "other-out"),
    "--max-steps",
    "1",
  );
  assert.equal(r.code, 2, r.err);
  assert.match(
    r.err.trim(),
    new RegExp(
      `^kiln train: --tokenizer "${other.tokenizerDir}": is not the tokenizer the shards in ${join(data, "train")} were prepared with`,
    ),
  );
  r = train("out");
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /training records of 16 tokens/);
  assert.doesNotMatch(r.err, NOTICE, "auto finds the CPU without a word when no accelerator was asked for");
  // Without --verbose nothing changed but the word: the notice comes when asked for (here, where no plugin is installed).
  if ("notFound" in discoverPjrtPlugin()) {
    r = train("verbose-out", "--verbose");
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, NOTICE);
  }

  // fill-mask without a mask token is a usage error (exit 2), before any work.
  const f = kiln("fill-mask", "--model", join(root, "out"), "no mask in this text");
  assert.equal(f.code, 2, f.err);
  assert.match(f.err, /^kiln: fill-mask: text = "no mask in this text" \(a string\) has no mask token \(id \d+\)\. Write it where/);
  assert.equal(f.out, "");
});
