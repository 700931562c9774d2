// `kiln verify DIR` checks a run directory offline: the final model and every checkpoint against their
// checksums.json, and a data prepare output against prepare.json's shard digests. A flipped byte in a
// checkpoint's weights, or two records swapped in a shard (checksums intact), are named; exit status 1.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { prepareDataset } from "../../src/data/prepare/prepare.js";
import { safetensorsLayout } from "../../src/models/safetensors.js";
import { saveTokenizer } from "../../src/text/index.js";
import { trainUnigram } from "../../src/text/train/unigram-trainer.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const root = tempDir("kiln-cli-verify-");

function verify(dir: string) {
  const r = spawnSync(process.execPath, [cli, "verify", dir], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test("a whole run verifies; a flipped weight in checkpoint-4 is named with its tensor, and the exit status is 1", async () => {
  const data = join(root, "shards");
  await writeTinyShards(data);
  const run = join(root, "run");
  const tokenizerDir = join(root, "tokenizer");
  await saveTokenizer(await trainUnigram(["the cat sat on the mat", "a dog ran far"], { vocabSize: 30 }), tokenizerDir);
  await trainTiny(data, run, 4, { tokenizerDir });
  let r = verify(run);
  assert.equal(r.code, 0, r.err);
  // The weights, config.json and the three tokenizer files; checkpoints add optimizer.safetensors and trainer_state.json.
  assert.deepEqual(r.out.trim().split("\n"), ["ok  model (5 files)", "ok  checkpoint-2 (7 files)", "ok  checkpoint-4 (7 files)"]);

  const file = join(run, "checkpoint-4", "model.safetensors");
  const bytes = readFileSync(file);
  const tensor = "roberta.embeddings.word_embeddings.weight";
  bytes[safetensorsLayout(bytes).tensors.find((t) => t.name === tensor)!.begin + 100]! ^= 0x01;
  writeFileSync(file, bytes);
  r = verify(run);
  assert.equal(r.code, 1);
  assert.match(r.out, new RegExp(`^DAMAGED  checkpoint-4: ${file} is damaged: the bytes of tensor "${tensor}" changed\\.`, "m"));
  assert.match(r.out, /^ok {2}checkpoint-2 \(7 files\)$/m);
  assert.match(r.err, /kiln: verify: 1 of 3 parts of .* are damaged \(checkpoint-4\)/);
});

test("a prepared data directory: shards checked against prepare.json's digests, a swapped pair of records named", async () => {
  const corpus = await makeTestCorpus(2);
  const out = join(root, "prepared");
  await prepareDataset({
    tokenizer: corpus.tokenizerDir,
    inputs: [corpus.corpus],
    out,
    maxLength: 32,
    shardSize: 20,
    progress: null,
    workers: 1,
  });
  let r = verify(out);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^ok {2}data train \(\d+ files\)$/m);

  const copy = join(root, "prepared-copy");
  cpSync(out, copy, { recursive: true });
  const shard = join(
    copy,
    "train",
    readdirSync(join(copy, "train"))
      .filter((n) => n.endsWith(".tfrecord"))
      .sort()[0]!,
  );
  const bytes = readFileSync(shard);
  const len = (at: number) => 16 + bytes.readUInt32LE(at);
  const [a, b] = [len(0), len(len(0))];
  writeFileSync(shard, Buffer.concat([bytes.subarray(a, a + b), bytes.subarray(0, a), bytes.subarray(a + b)]));
  r = verify(copy);
  assert.equal(r.code, 1);
  assert.match(r.out, new RegExp(`^DAMAGED  data train: ${shard} is not the shard data prepare wrote: its SHA-256`, "m"));
});

test("kiln verify takes one directory", () => {
  const r = spawnSync(process.execPath, [cli, "verify"], { encoding: "utf8" });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /kiln verify: give one directory/);
  const empty = mkdtempSync(join(root, "empty-"));
  assert.match(verify(empty).err, /holds no model, checkpoint or prepared data that Kiln can check/);
});
