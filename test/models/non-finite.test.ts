// Weights holding NaN or ±Infinity (a run that diverged) are refused wherever a model is loaded, with
// the file, the tensor, how many values and the first one: `kiln fill-mask`, `kiln export`,
// `kiln train --init-from`, and paramsFromTensors (which checkpoint resume uses) from TypeScript.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as k from "../../src/index.js";
import { createMaskedLM, validateConfig } from "../../src/models/index.js";
import { checkFinite, paramsFromTensors, saveModel } from "../../src/models/pretrained.js";
import { readSafetensors, writeSafetensors, type NamedTensor } from "../../src/models/safetensors.js";
import { ONE_LAYER_CONFIG } from "../helpers/tiny-config.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { writeTinyShards } from "../helpers/tiny-training.js";
import { tempDir } from "../helpers/temp-dir.js";

const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
const root = tempDir("kiln-non-finite-");
const corpus = await makeTestCorpus(2, 300);
const config = validateConfig(ONE_LAYER_CONFIG, "test config");
const model = createMaskedLM(config);
const params = k.jit((key: k.Array) => model.init(key))(k.randomKey(7));

const QUERY = "roberta.encoder.layer.0.attention.self.query.weight";
const DIVERGED = "the model diverged when it was trained — retrain with a lower learning rate or resume from an earlier checkpoint";
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A model directory (weights, config, the test tokenizer) whose query weight holds NaN at 345 and 400 and Infinity at 401. */
async function poisonedModelDir(): Promise<string> {
  const dir = join(root, "poisoned");
  await saveModel(dir, model, params);
  cpSync(corpus.tokenizerDir, dir, { recursive: true });
  const file = join(dir, "model.safetensors");
  const { tensors } = await readSafetensors(file);
  const data = Float32Array.from(tensors[QUERY]!.data as Float32Array);
  data[345 % data.length] = NaN;
  data[400 % data.length] = NaN;
  data[401 % data.length] = Infinity;
  await writeSafetensors(file, { ...tensors, [QUERY]: { ...tensors[QUERY]!, data } }, { format: "pt" });
  // As a tool that does not record digests would leave it (Kiln's checksums.json would refuse the edit).
  rmSync(join(dir, "checksums.json"));
  return dir;
}

function kiln(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test("checkFinite names the tensor, the count and the first bad value, for f32, f64, f16 and bf16", () => {
  const f32: NamedTensor = { dtype: "f32", shape: [4], data: Float32Array.of(1, -Infinity, NaN, 2) };
  assert.throws(
    () => checkFinite(f32, "w", "m.safetensors"),
    (e: Error) => e.message === `m.safetensors: tensor "w" holds 2 non-finite values (first at index 1: -Infinity); ${DIVERGED}`,
  );
  assert.throws(
    () => checkFinite({ dtype: "f64", shape: [2], data: Float64Array.of(0, NaN) }, "w", "f"),
    /holds 1 non-finite value \(first at index 1: NaN\)/,
  );
  // bf16 and f16 as stored: +Infinity, and NaN.
  assert.throws(() => checkFinite({ dtype: "bf16", shape: [2], data: Uint16Array.of(0x3f80, 0x7f80) }, "w", "f"), /index 1: Infinity\)/);
  assert.throws(() => checkFinite({ dtype: "f16", shape: [2], data: Uint16Array.of(0x7e00, 0x3c00) }, "w", "f"), /index 0: NaN\)/);
  // Finite values, the largest ones included, and integer tensors pass.
  checkFinite({ dtype: "f32", shape: [2], data: Float32Array.of(3.4e38, -3.4e38) }, "w", "f");
  checkFinite({ dtype: "bf16", shape: [1], data: Uint16Array.of(0x7f7f) }, "w", "f");
  checkFinite({ dtype: "i32", shape: [1], data: Int32Array.of(-1) }, "w", "f");
});

test("paramsFromTensors (checkpoint resume's loader) refuses a NaN", async () => {
  const dir = await poisonedModelDir();
  const file = join(dir, "model.safetensors");
  const { tensors } = await readSafetensors(file);
  assert.throws(
    () => paramsFromTensors(model, tensors, file),
    new RegExp(`^Error: ${escape(file)}: tensor "${escape(QUERY)}" holds 3 non-finite values \\(first at index 89: NaN\\); ${DIVERGED}$`),
  );
});

test("kiln fill-mask and kiln export refuse a model with non-finite weights, naming file and tensor", async () => {
  const dir = await poisonedModelDir();
  const message =
    `kiln: ${join(dir, "model.safetensors")}: tensor "${QUERY}" holds 3 non-finite values ` + `(first at index 89: NaN); ${DIVERGED}`;
  let r = kiln("fill-mask", "--model", dir, "The [MASK] of the Union.");
  assert.equal(r.code, 1, r.err);
  assert.equal(r.err.trim(), message);
  assert.equal(r.out, "");
  r = kiln("export", "--model", dir, "--format", "onnx", "--out", join(root, "onnx"));
  assert.equal(r.code, 1, r.err);
  assert.equal(r.err.trim(), message);
});

test("kiln train --init-from refuses a model with non-finite weights before training", async () => {
  const dir = await poisonedModelDir();
  const shards = join(root, "shards");
  await writeTinyShards(shards, 8);
  const out = join(root, "out");
  const r = kiln(
    "train",
    "--init-from",
    dir,
    "--tokenizer",
    corpus.tokenizerDir,
    "--train-data",
    shards,
    "--output-dir",
    out,
    "--per-replica-batch-size",
    "2",
    "--max-steps",
    "1",
    "--accelerator",
    "cpu",
    "--quiet",
  );
  assert.equal(r.code, 1, r.err);
  assert.match(
    r.err,
    new RegExp(`^kiln: ${escape(join(dir, "model.safetensors"))}: tensor "${escape(QUERY)}" holds 3 non-finite values`, "m"),
  );
});
