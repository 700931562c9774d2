// `kiln train` refuses bad input before compiling anything, saying what and how to fix it.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeOneLayerConfig } from "../helpers/tiny-config.js";
import { writeTinyShards } from "../helpers/tiny-training.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { xlaCpuSkip } from "../helpers/xla-cpu-plugin.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const root = tempDir("kiln-cli-train-");
const shards = join(root, "shards");
await writeTinyShards(shards, 16);
const corpus = await makeTestCorpus(2, 300);

/** A one-layer RoBERTa config.json for the test tokenizer (300 pieces), written once. */
const tinyConfigFile = () => writeOneLayerConfig(join(root, "tiny-config.json"));

function kiln(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, "train", ...args], { encoding: "utf8" });
  return { code: r.status, err: r.stderr };
}

test("bad flags, a missing tokenizer, and shards that disagree with the model are refused up front", () => {
  const base = ["--tokenizer", corpus.tokenizerDir, "--train-data", shards, "--output-dir", join(root, "out"), "--preset", "mlm-small"];
  let r = kiln(...base, "--learning-rat", "1");
  assert.equal(r.code, 2);
  assert.match(r.err, /^kiln train: unknown flag --learning-rat \(did you mean --learning-rate\?\)\n.*kiln train --help/);
  r = kiln(...base.map((a) => (a === corpus.tokenizerDir ? join(root, "nope") : a)));
  assert.equal(r.code, 2);
  assert.match(r.err, /--tokenizer .*nope: no tokenizer\.json there \(train one with `kiln tokenizer train`\)/);
  r = kiln(...base, "--max-length", "32");
  assert.match(r.err, /--max-length "32": does not match the shards: .*dataset-0-8\.tfrecord holds records of 16 tokens/);
  r = kiln(...base.slice(0, -2));
  assert.match(r.err, /give exactly one of --preset and --model-config/);
  const config = join(root, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      model_type: "roberta",
      vocab_size: 12,
      hidden_size: 8,
      num_hidden_layers: 1,
      num_attention_heads: 2,
      intermediate_size: 8,
      max_position_embeddings: 20,
      type_vocab_size: 1,
      pad_token_id: 3,
    }),
  );
  r = kiln(...base.slice(0, -2), "--model-config", config);
  assert.match(r.err, /--model-config ".*config\.json": vocab_size 12 differs from the tokenizer's 300/);
  r = kiln(...base, "--precision", "fp8");
  assert.match(r.err, /--precision must be one of 32, 32-true, bf16-mixed, bf16-true, 16-mixed, auto, got "fp8"/);
  r = kiln(...base, "--accelerator", "gpu");
  assert.equal(r.code, 2);
  assert.match(
    r.err,
    /^kiln train: --accelerator "gpu": was requested but none was found: [^]*Devices here: cpu:0 \(ort\)\. Use --accelerator cpu/,
  );
});

test("--executor: refused when unknown or with a GPU/TPU accelerator", () => {
  const base = ["--tokenizer", corpus.tokenizerDir, "--train-data", shards, "--output-dir", join(root, "out"), "--preset", "mlm-small"];
  let r = kiln(...base, "--executor", "tvm");
  assert.equal(r.code, 2);
  assert.match(r.err, /--executor must be ort or xla \(who runs the CPU; GPUs and TPUs always run on XLA\), got "tvm"/);
  r = kiln(...base, "--executor", "ort", "--accelerator", "gpu");
  assert.equal(r.code, 2);
  assert.match(r.err, /^kiln train: --executor "ort": runs only on the CPU; --accelerator gpu always runs on XLA\. Leave executor out/);
});

test("kiln train --executor xla --devices 2 trains on two XLA CPU devices (the wheel found by discovery)", { skip: xlaCpuSkip }, () => {
  const config = tinyConfigFile();
  const out = join(root, "xla-out");
  const env = { ...process.env };
  delete env.KILN_PJRT_PLUGIN;
  const r = spawnSync(
    process.execPath,
    [
      cli,
      "train",
      "--tokenizer",
      corpus.tokenizerDir,
      "--train-data",
      shards,
      "--output-dir",
      out,
      "--model-config",
      config,
      "--per-replica-batch-size",
      "2",
      "--max-steps",
      "2",
      "--accelerator",
      "cpu",
      "--executor",
      "xla",
      "--devices",
      "2",
    ],
    { encoding: "utf8", env },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout + r.stderr, /on xla-cpu:0, xla-cpu:1 \(data-parallel/);
  assert.ok(existsSync(join(out, "model.safetensors")));
});

test("a damaged shard stops kiln train before anything compiles; --skip-bad-records trains past it and lists it", () => {
  const damaged = join(root, "damaged");
  mkdirSync(damaged);
  for (const f of readdirSync(shards)) copyFileSync(join(shards, f), join(damaged, f));
  const victim = join(damaged, readdirSync(damaged).sort()[1]!);
  const bytes = readFileSync(victim);
  bytes[bytes.length - 10]! ^= 0xff; // inside the last record's data: its checksum no longer matches
  writeFileSync(victim, bytes);
  const config = tinyConfigFile();
  const args = ["--tokenizer", corpus.tokenizerDir, "--train-data", damaged, "--model-config", config];
  const more = ["--per-replica-batch-size", "2", "--max-steps", "2", "--accelerator", "cpu", "--quiet"];
  let r = kiln(...args, "--output-dir", join(root, "damaged-out"), ...more);
  assert.equal(r.code, 1);
  assert.match(r.err, new RegExp(`${victim.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}.*checksum[^]*--skip-bad-records`));
  assert.doesNotMatch(r.err, /parameters, /, "it stopped before the run began");
  assert.ok(!existsSync(join(root, "damaged-out", "model.safetensors")));

  r = kiln(...args, "--output-dir", join(root, "skipping-out"), ...more, "--skip-bad-records");
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /checked 2 shards \([\d.]+ MB\) in [\d.]+ s, 1 bad records to skip/);
  assert.match(r.err, /kiln train: training data: skipped 1 bad record in 1 file/);
  assert.ok(existsSync(join(root, "skipping-out", "model.safetensors")));
});

test("--resume with a tokenizer other than the checkpoint's is refused before anything compiles", async () => {
  const config = tinyConfigFile();
  const out = join(root, "resume-tokenizer");
  const more = ["--per-replica-batch-size", "2", "--max-steps", "2", "--accelerator", "cpu", "--quiet"];
  let r = kiln("--tokenizer", corpus.tokenizerDir, "--train-data", shards, "--model-config", config, "--output-dir", out, ...more);
  assert.equal(r.code, 0, r.err);
  const other = await makeTestCorpus(3, 300);
  r = kiln("--tokenizer", other.tokenizerDir, "--train-data", shards, "--model-config", config, "--output-dir", out, ...more, "--resume");
  assert.equal(r.code, 2, r.err);
  assert.match(
    r.err,
    new RegExp(
      `^kiln train: --tokenizer ".*": is not the tokenizer of .*checkpoint-2: ` +
        `id \\d+ is .* there but .* in .*checkpoint-2/tokenizer\\.json\\. Pass the tokenizer in .*checkpoint-2`,
    ),
  );
});

test("--optimizer: lion and adafactor train; an unknown name, and --resume with another optimizer, are refused", () => {
  const config = tinyConfigFile();
  const args = ["--tokenizer", corpus.tokenizerDir, "--train-data", shards, "--model-config", config];
  const more = ["--per-replica-batch-size", "2", "--max-steps", "2", "--accelerator", "cpu", "--quiet"];
  let r = kiln(...args, "--output-dir", join(root, "sgd-out"), ...more, "--optimizer", "sgd");
  assert.equal(r.code, 2);
  assert.match(r.err, /--optimizer must be one of adamw, adafactor, lion, got "sgd"/);
  for (const optimizer of ["lion", "adafactor"]) {
    const out = join(root, `${optimizer}-out`);
    r = kiln(...args, "--output-dir", out, ...more, "--optimizer", optimizer);
    assert.equal(r.code, 0, r.err);
    const state = JSON.parse(readFileSync(join(out, "checkpoint-2", "trainer_state.json"), "utf8"));
    assert.equal(state.run_settings.optimizer, optimizer);
  }
  r = kiln(...args, "--output-dir", join(root, "lion-out"), ...more, "--resume");
  assert.equal(r.code, 2);
  assert.match(
    r.err,
    new RegExp(
      '^kiln train: --optimizer "adamw": differs from the optimizer of .*checkpoint-2, "lion", .*\\. ' +
        "Resume with --optimizer lion, or train into another --output-dir",
    ),
  );
});
