// Model directories are data from elsewhere. A sharded index, config.json or tokenizer file that names or
// links to a file outside its directory is refused before anything is opened (the Hugging Face cache's
// snapshot links into its own blobs still load); sizes in config.json are bounded before anything is
// allocated; a model Kiln saved is checked against its checksums.json, naming the tensor that changed.
import test from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as k from "../../src/index.js";
import { fixture } from "../helpers/fixtures.js";
import { loadModel, saveModel } from "../../src/models/index.js";
import { safetensorsLayout } from "../../src/models/safetensors.js";
import { CorruptFileError } from "../../src/models/file-digests.js";
import { PathEscapeError } from "../../src/io/contained-path.js";
import { loadTokenizer, saveTokenizer } from "../../src/text/index.js";
import { trainUnigram } from "../../src/text/train/unigram-trainer.js";
import { tempDir } from "../helpers/temp-dir.js";

k.setDefaultDevice("ref:0");
const root = tempDir("kiln-hostile-");

/** A model directory of the tiny RoBERTa fixture (config.json and model.safetensors, no checksums: as transformers writes). */
function fixtureDir(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(fixture("roberta-tiny.json"), join(dir, "config.json"));
  copyFileSync(fixture("roberta-tiny.safetensors"), join(dir, "model.safetensors"));
  return dir;
}

// A valid safetensors file outside every model directory: reading it through an index would "work".
const outside = join(root, "outside");
mkdirSync(outside);
copyFileSync(fixture("roberta-tiny.safetensors"), join(outside, "model-00001-of-00001.safetensors"));

test("a sharded index naming files outside its directory is refused before any shard is opened", async () => {
  const names = [
    "../outside/model-00001-of-00001.safetensors",
    join(outside, "model-00001-of-00001.safetensors"),
    "/etc/passwd",
    "a/../../x",
  ];
  for (const [i, name] of names.entries()) {
    const dir = fixtureDir(`index-${i}`);
    rmSync(join(dir, "model.safetensors"));
    const index = join(dir, "model.safetensors.index.json");
    writeFileSync(index, JSON.stringify({ weight_map: { "roberta.embeddings.word_embeddings.weight": name } }));
    await assert.rejects(
      loadModel(dir, { task: "mlm" }),
      (e: Error) =>
        e instanceof PathEscapeError &&
        e.message.startsWith(`${index} names ${JSON.stringify(name)}, which `) &&
        e.message.includes("Nothing was opened"),
      name,
    );
  }
});

test("a shard, config.json or tokenizer.json that is a symlink out of the directory is refused; the HF cache's links load", async () => {
  const shardLink = fixtureDir("shard-link");
  rmSync(join(shardLink, "model.safetensors"));
  symlinkSync(join(outside, "model-00001-of-00001.safetensors"), join(shardLink, "model-00001-of-00001.safetensors"));
  writeFileSync(
    join(shardLink, "model.safetensors.index.json"),
    JSON.stringify({ weight_map: { "roberta.embeddings.word_embeddings.weight": "model-00001-of-00001.safetensors" } }),
  );
  await assert.rejects(
    loadModel(shardLink, { task: "mlm" }),
    /is a symlink to .*outside\/model-00001-of-00001\.safetensors, outside the directory/,
  );

  const configLink = fixtureDir("config-link");
  rmSync(join(configLink, "config.json"));
  copyFileSync(fixture("roberta-tiny.json"), join(outside, "config.json"));
  symlinkSync(join(outside, "config.json"), join(configLink, "config.json"));
  await assert.rejects(loadModel(configLink, { task: "mlm" }), PathEscapeError);

  const tokDir = join(root, "tokenizer");
  await saveTokenizer(await trainUnigram(["the cat sat on the mat", "a dog ran far"], { vocabSize: 30 }), tokDir);
  const tokLink = join(root, "tokenizer-link");
  mkdirSync(tokLink);
  symlinkSync(join(tokDir, "tokenizer.json"), join(tokLink, "tokenizer.json"));
  await assert.rejects(loadTokenizer(tokLink), (e: Error) => e instanceof PathEscapeError && e.message.includes('names "tokenizer.json"'));

  // The hub cache: <repo>/snapshots/<revision>/<file> → ../../blobs/<hash>.
  const repo = join(root, "hub", "models--kiln--tiny");
  mkdirSync(join(repo, "blobs"), { recursive: true });
  mkdirSync(join(repo, "snapshots", "0123abc"), { recursive: true });
  copyFileSync(fixture("roberta-tiny.json"), join(repo, "blobs", "c0nf1g"));
  copyFileSync(fixture("roberta-tiny.safetensors"), join(repo, "blobs", "we1ght5"));
  symlinkSync("../../blobs/c0nf1g", join(repo, "snapshots", "0123abc", "config.json"));
  symlinkSync("../../blobs/we1ght5", join(repo, "snapshots", "0123abc", "model.safetensors"));
  const loaded = await loadModel(join(repo, "snapshots", "0123abc"), { task: "mlm" });
  assert.equal(loaded.model.config.hidden_size, 16);
});

test("config.json sizes beyond any real model are refused by field before anything is allocated", async () => {
  const config = JSON.parse(readFileSync(fixture("roberta-tiny.json"), "utf8"));
  for (const [patch, message] of [
    [{ hidden_size: 1e12 }, /"hidden_size" is 1000000000000, over the 131072 Kiln accepts/],
    [{ num_hidden_layers: 1e6 }, /"num_hidden_layers" is 1000000, over the 4096 Kiln accepts/],
    [{ vocab_size: 2 ** 24, hidden_size: 2 ** 16 }, /the token embeddings would be 16777216 × 65536 = \d+ values, over the 2147483648/],
  ] as const) {
    const dir = fixtureDir(`huge-${Object.keys(patch).join("-")}`);
    writeFileSync(join(dir, "config.json"), JSON.stringify({ ...config, ...patch }));
    const rss = process.memoryUsage().rss;
    await assert.rejects(loadModel(dir, { task: "mlm", missingHead: "init" }), message);
    assert.ok(process.memoryUsage().rss - rss < 64 * 2 ** 20, "nothing large was allocated");
  }
});

test("a model Kiln saved: one flipped byte in a finite weight is refused, naming the file and the tensor", async () => {
  const source = await loadModel(fixtureDir("to-save"), { task: "mlm" });
  const dir = join(root, "saved");
  await saveModel(dir, source.model, source.params);
  await loadModel(dir, { task: "mlm" }); // whole: loads
  const file = join(dir, "model.safetensors");
  const bytes = readFileSync(file);
  const tensor = "roberta.encoder.layer.0.output.dense.weight";
  const t = safetensorsLayout(bytes).tensors.find((x) => x.name === tensor)!;
  bytes[t.begin + 9]! ^= 0x01; // a mantissa bit of value 2: still finite
  writeFileSync(file, bytes);
  await assert.rejects(
    loadModel(dir, { task: "mlm" }),
    (e: Error) =>
      e instanceof CorruptFileError &&
      e.message.startsWith(`${file} is damaged: the bytes of tensor "${tensor}" changed. Copy the model into ${dir} again`),
  );
});
