// `kiln export` refuses what it cannot export, saying what is wrong, where, and what to do instead.
import test from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { kilnRun } from "../helpers/hf-interop.js";
import { fixture } from "../helpers/fixtures.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-export-bad-");

/** A model directory holding `config` as config.json and nothing else. */
function modelDir(name: string, config: Record<string, unknown>): string {
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  return dir;
}

const tinyConfig = JSON.parse(readFileSync(fixture("roberta-tiny.json"), "utf8")) as Record<string, unknown>;

function assertFails(args: string[], pattern: RegExp): void {
  const r = kilnRun("export", ...args);
  assert.notEqual(r.code, 0, `kiln export ${args.join(" ")} succeeded:\n${r.out}`);
  assert.match(r.err, pattern);
  assert.doesNotMatch(r.err, /^\s+at /m, "a clear message, not a stack trace");
}

test("a directory with no weights: names the missing file and what to pass", () => {
  const dir = modelDir("no-weights", tinyConfig);
  assertFails(["--model", dir, "--format", "onnx"], /no model\.safetensors .*written by `kiln train` or save_pretrained/);
  assert.ok(!existsSync(join(dir, "onnx")), "nothing written");
});

test("an unknown --format lists the formats", () => {
  const dir = modelDir("unknown-format", tinyConfig);
  assertFails(["--model", dir, "--format", "tflite"], /^kiln export: --format "tflite": is not one of the formats, onnx$/m);
});

test("a model type the exporter does not know says which it knows", () => {
  const dir = modelDir("t5", { ...tinyConfig, model_type: "t5" });
  assertFails(
    ["--model", dir, "--format", "onnx"],
    /model_type "t5", which the exporter does not know; it exports roberta, bert, llama, gpt2 models/,
  );
});

test("a decoder refuses a fixed --batch: its cache makes the signature dynamic", () => {
  const dir = modelDir("llama-fixed", { model_type: "llama" });
  assertFails(
    ["--model", dir, "--format", "onnx", "--batch", "2"],
    /^kiln export: --batch "2": is for encoders; a decoder exports with dynamic batch/m,
  );
  assert.ok(!existsSync(join(dir, "onnx")), "nothing written");
});

test("a missing directory, an unknown precision, a length beyond the positions: each a clear error", () => {
  assertFails(["--model", join(root, "nowhere"), "--format", "onnx"], /nowhere\/config\.json not found/);
  const dir = modelDir("flags", tinyConfig);
  copyFileSync(fixture("roberta-tiny.safetensors"), join(dir, "model.safetensors"));
  assertFails(
    ["--model", dir, "--format", "onnx", "--precision", "int4"],
    /^kiln export: --precision "int4": is not one of the precisions, f32$/m,
  );
  assertFails(["--model", dir, "--format", "onnx", "--batch", "none"], /--batch must be "dynamic" or an integer ≥ 1, got "none"/);
  assertFails(
    ["--model", dir, "--format", "onnx", "--max-length", "20"],
    /^kiln export: --max-length "20": is outside 1\.\.8, the lengths this model's position embeddings cover$/m,
  );
  assert.ok(!existsSync(join(dir, "onnx")), "nothing written");
});
