// `kiln train` choosing its CPU executor and precision by measurement: --precision auto probes (once: the
// next run reads the cache in $XDG_CACHE_HOME/kiln), says in one line what runs and why, and trains with
// it; --executor given (precision not auto) and models too small to be worth a probe are not probed;
// `kiln devices` lists the cached probe; auto on a GPU/TPU is refused.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSentenceCorpus } from "../helpers/sotu-slice.js";
import { xlaCpuSkip } from "../helpers/xla-cpu-plugin.js";
import { loadTokenizer } from "../../src/text/index.js";
import { presetConfig } from "../../src/models/index.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const root = tempDir("kiln-cli-probe-");
const env = { ...process.env, XDG_CACHE_HOME: join(root, "cache") };
const cacheFile = join(root, "cache", "kiln", "executor-probe.json");

function kiln(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", timeout: 300_000, env });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const corpus = writeSentenceCorpus(join(root, "corpus.txt"));
const tokenizer = join(root, "tokenizer");
const shards = join(root, "shards");
for (const r of [
  kiln("tokenizer", "train", "--input", corpus, "--vocab-size", "300", "--out", tokenizer),
  kiln("data", "prepare", "--tokenizer", tokenizer, "--input", corpus, "--out", shards, "--max-length", "32", "--quiet"),
])
  assert.equal(r.code, 0, r.err);

const train = (out: string, ...flags: string[]) =>
  kiln(
    "train",
    ..."--task causal-lm --preset llama-tiny --max-steps 2 --per-replica-batch-size 2 --accelerator cpu --quiet".split(" "),
    "--tokenizer",
    tokenizer,
    "--train-data",
    join(shards, "train"),
    "--output-dir",
    join(root, out),
    ...flags,
  );

const probeLine = (err: string) => err.split("\n").find((l) => l.startsWith("kiln train: executor "));

test("--precision auto probes once, says what runs and why, trains with it, and the next run reads the cache", { skip: xlaCpuSkip }, () => {
  const first = train("auto-1", "--precision", "auto");
  assert.equal(first.code, 0, first.err);
  const line = probeLine(first.err);
  assert.ok(line, first.err);
  const [, executor, precision] = /^kiln train: executor (ort|xla) \((32|bf16-mixed)\): /.exec(line)!;
  assert.ok(line.includes(`cached in ${cacheFile}`), line);
  // The run trained with the choice (its summary line names the devices and the precision).
  assert.match(first.err, new RegExp(`on ${executor === "xla" ? "xla-cpu:0" : "cpu:0"} \\(one-device, precision ${precision}\\)`));
  const cached = JSON.parse(readFileSync(cacheFile, "utf8")) as { entries: { probedAt: string; timings: unknown[] }[] };
  assert.equal(cached.entries.length, 1);
  assert.equal(cached.entries[0]!.timings.length, 3, "ort f32, xla f32, xla bf16-mixed (ort's bf16 is emulated: left out)");

  const second = train("auto-2", "--precision", "auto");
  assert.equal(second.code, 0, second.err);
  assert.equal(probeLine(second.err), line, "the same choice, from the cache");
  assert.deepEqual(JSON.parse(readFileSync(cacheFile, "utf8")), cached, "the cache was read, not rewritten");

  const devices = kiln("devices");
  assert.equal(devices.code, 0, devices.err);
  assert.match(devices.out, /executor probes for .*: 1 cached in /);
  assert.match(devices.out, /model_type llama, width 16, .*precision auto on ort,xla: (ort|xla) /);
});

test("an explicit --executor, or a model too small to be worth a probe, is not probed", { skip: xlaCpuSkip }, () => {
  const before = existsSync(cacheFile) ? readFileSync(cacheFile, "utf8") : undefined;
  for (const flags of [["--executor", "ort"], []]) {
    const r = train(`plain-${flags.length}`, ...flags);
    assert.equal(r.code, 0, r.err);
    assert.equal(probeLine(r.err), undefined, r.err);
    assert.match(r.err, /on cpu:0 \(one-device, precision 32\)/);
  }
  assert.equal(existsSync(cacheFile) ? readFileSync(cacheFile, "utf8") : undefined, before);
});

test("without --executor, a model 128 wide is probed in f32 (the default precision) on both executors", { skip: xlaCpuSkip }, async () => {
  const config = join(root, "llama-128.json");
  const ids = await loadTokenizer(tokenizer);
  writeFileSync(
    config,
    JSON.stringify({ ...presetConfig("llama-tiny", ids, 32), hidden_size: 128, intermediate_size: 256, num_hidden_layers: 1 }),
  );
  const r = kiln(
    "train",
    ..."--task causal-lm --max-steps 1 --per-replica-batch-size 2 --accelerator cpu --quiet".split(" "),
    "--model-config",
    config,
    "--tokenizer",
    tokenizer,
    "--train-data",
    join(shards, "train"),
    "--output-dir",
    join(root, "wide"),
  );
  assert.equal(r.code, 0, r.err);
  const line = probeLine(r.err);
  assert.match(
    line ?? r.err,
    /^kiln train: executor (ort|xla) \(32\): .*ort f32 \d+ ms.* per step of llama width 128, vocab 300, 2×32 tokens/,
  );
  const executor = /executor (ort|xla)/.exec(line!)![1];
  assert.match(r.err, new RegExp(`on ${executor === "xla" ? "xla-cpu:0" : "cpu:0"} \\(one-device, precision 32\\)`));
  const entries = (JSON.parse(readFileSync(cacheFile, "utf8")) as { entries: { key: { request: string }; timings: unknown[] }[] }).entries;
  const entry = entries.find((e) => e.key.request === "32 on ort,xla");
  assert.equal(entry?.timings.length, 2, "ort f32 and xla f32 only");
});

test("--precision auto on a GPU/TPU is refused with the precisions to give", () => {
  const r = train("gpu", "--accelerator", "gpu", "--precision", "auto");
  assert.notEqual(r.code, 0);
  assert.match(r.err, /--precision auto measures the CPU executors; on a GPU\/TPU give --precision 32 or bf16-mixed/);
});
