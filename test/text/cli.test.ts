// `kiln tokenizer train|encode` end to end, as a user runs it.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { sotuSlice } from "../helpers/sotu-slice.js";

const kiln = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const corpus = sotuSlice(5);
test.after(() => rmSync(corpus.dir, { recursive: true, force: true }));

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [kiln, "tokenizer", ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("train writes a tokenizer directory and reports progress; encode uses it", () => {
  const out = join(corpus.dir, "tok");
  const trained = run("train", "--input", corpus.path, "--vocab-size", "400", "--out", out);
  assert.equal(trained.status, 0, trained.stderr);
  assert.match(trained.stderr, /reading: 5 documents/);
  assert.match(trained.stderr, /EM round 1/);
  for (const name of ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"]) assert.ok(existsSync(join(out, name)), name);

  const encoded = run("encode", "--tokenizer", out, "Goal of my life is to [MASK].");
  assert.equal(encoded.status, 0, encoded.stderr);
  const { ids, tokens } = JSON.parse(encoded.stdout) as { ids: number[]; tokens: string[] };
  assert.equal(ids[0], 0);
  assert.equal(ids[ids.length - 1], 1);
  assert.equal(tokens.filter((t) => t === "[MASK]").length, 1);
});

test("--model bpe and --model wordpiece train tokenizers that encode and load like the Unigram one", () => {
  for (const [model, continuation] of [
    ["bpe", /^Ġ/],
    ["wordpiece", /^##/],
  ] as const) {
    const out = join(corpus.dir, `tok-${model}`);
    const trained = run("train", "--model", model, "--input", corpus.path, "--vocab-size", "600", "--out", out);
    assert.equal(trained.status, 0, trained.stderr);
    assert.match(trained.stderr, /done: 600 tokens/);
    const encoded = run("encode", "--tokenizer", out, "The Congress, unbelievably, is to [MASK].");
    assert.equal(encoded.status, 0, encoded.stderr);
    const { ids, tokens } = JSON.parse(encoded.stdout) as { ids: number[]; tokens: string[] };
    assert.deepEqual([ids[0], ids.at(-1)], [0, 1], "[CLS] … [SEP]");
    assert.equal(tokens.filter((t) => t === "[MASK]").length, 1);
    assert.ok(
      tokens.some((t) => continuation.test(t)),
      `${model} tokens: ${tokens.join(" ")}`,
    );
  }
  const bad = run("train", "--model", "sentencepiece", "--input", corpus.path, "--vocab-size", "600", "--out", join(corpus.dir, "x"));
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--model must be one of unigram, bpe, wordpiece, got "sentencepiece"/);
});

test("usage mistakes exit 2 and name the flag", () => {
  const noInput = run("train", "--vocab-size", "100", "--out", join(corpus.dir, "x"));
  assert.equal(noInput.status, 2);
  assert.match(noInput.stderr, /no input files; name them with --input/);
  const noSize = run("train", "--input", corpus.path, "--out", join(corpus.dir, "x"));
  assert.equal(noSize.status, 2);
  assert.match(noSize.stderr, /--vocab-size is required/);
  const badSize = run("train", "--input", corpus.path, "--vocab-size", "lots", "--out", join(corpus.dir, "x"));
  assert.match(badSize.stderr, /--vocab-size must be an integer ≥ 1, got "lots"/);
  assert.match(run("frobnicate").stderr, /unknown subcommand "frobnicate"/);
});

test("bad corpora exit 1 with the problem spelled out", () => {
  const empty = join(corpus.dir, "empty.txt");
  writeFileSync(empty, "\n\n");
  const r1 = run("train", "--input", empty, "--vocab-size", "100", "--out", join(corpus.dir, "x"));
  assert.equal(r1.status, 1);
  assert.match(r1.stderr, /the corpus is empty: 2 documents read/);
  const gz = join(corpus.dir, "broken.gz");
  writeFileSync(gz, Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3]));
  const r2 = run("train", "--input", gz, "--vocab-size", "100", "--out", join(corpus.dir, "x"));
  assert.equal(r2.status, 1);
  assert.match(r2.stderr, /broken\.gz: it looks gzip-compressed but does not decompress/);
  const r3 = run("train", "--input", corpus.path, "--vocab-size", "30", "--out", join(corpus.dir, "x"));
  assert.equal(r3.status, 1);
  assert.match(r3.stderr, /vocab size 30 is too small/);
  assert.ok(!existsSync(join(corpus.dir, "x")), "nothing written after a failure");
});
