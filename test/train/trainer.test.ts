// What fit() leaves behind: a checkpoint layout a Python user recognizes, TensorBoard events, metrics,
// the loss curve; and the callbacks (best checkpoint, early stopping, learning-rate monitor).
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readSafetensors } from "../../src/models/safetensors.js";
import { readRecords } from "../../src/data/tfrecord/files.js";
import { EarlyStopping, LearningRateMonitor, ModelCheckpoint } from "../../src/train/callbacks.js";
import { OptionError } from "../../src/core/option-error.js";
import type { MaskingSettings } from "../../src/train/trainer.js";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-trainer-");
const data = join(root, "data"),
  evalDir = join(root, "eval");
await writeTinyShards(data, 48);
await writeTinyShards(evalDir, 16);

test("checkpoints and the final model directory hold what Hugging Face and resuming need", async () => {
  const out = join(root, "run");
  const result = await trainTiny(data, out, 6, { evalDir, callbacks: [new LearningRateMonitor()] });
  // Every 2 steps, the newest 2 kept.
  assert.deepEqual(
    readdirSync(out)
      .filter((n) => n.startsWith("checkpoint-"))
      .sort(),
    ["checkpoint-4", "checkpoint-6"],
  );
  const ck = join(out, "checkpoint-6");
  for (const f of ["config.json", "model.safetensors", "optimizer.safetensors", "trainer_state.json"])
    assert.ok(existsSync(join(ck, f)), f);
  const config = JSON.parse(readFileSync(join(ck, "config.json"), "utf8"));
  assert.equal(config.model_type, "roberta");
  assert.deepEqual(config.architectures, ["RobertaForMaskedLM"]);
  const { tensors, metadata } = await readSafetensors(join(ck, "model.safetensors"));
  assert.equal(metadata.format, "pt");
  assert.ok(tensors["roberta.embeddings.word_embeddings.weight"]);
  assert.ok(tensors["lm_head.bias"]);
  assert.equal(tensors["lm_head.decoder.weight"], undefined, "the tied decoder weight is stored once, as the embeddings");
  assert.ok(Object.values(tensors).every((t) => t.dtype === "f32"));
  assert.deepEqual(tensors["roberta.encoder.layer.0.intermediate.dense.weight"]!.shape, [32, 16]);
  const opt = (await readSafetensors(join(ck, "optimizer.safetensors"))).tensors;
  assert.ok(opt["exp_avg.lm_head.bias"] && opt["exp_avg_sq.lm_head.bias"] && opt.step);
  assert.equal((opt.step!.data as Float32Array)[0], 6);
  const state = JSON.parse(readFileSync(join(ck, "trainer_state.json"), "utf8"));
  assert.equal(state.global_step, 6);
  assert.equal(state.data_state.version, 1);
  // Final model directory, metrics, plot, TensorBoard events.
  for (const f of ["config.json", "model.safetensors", "loss_curve.html", "metrics.jsonl"]) assert.ok(existsSync(join(out, f)), f);
  const lines = readFileSync(join(out, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(lines.filter((l) => l.loss !== undefined).length, 6);
  assert.equal(lines.filter((l) => l.lr !== undefined).length, 6, "the LR monitor logs the rate every step");
  assert.ok(lines.some((l) => l.eval_loss !== undefined));
  assert.equal(result.evalHistory.length, 1);
  const events = readdirSync(join(out, "runs")).filter((n) => n.startsWith("events.out.tfevents."));
  assert.equal(events.length, 1);
  const records: Uint8Array[] = [];
  for await (const r of readRecords(join(out, "runs", events[0]!))) records.push(r);
  assert.ok(Buffer.from(records[0]!).includes(Buffer.from("brain.Event:2")), "the first event names the file version");
  assert.ok(
    records.slice(1).some((r) => Buffer.from(r).includes(Buffer.from("eval_loss"))),
    "scalar summaries carry their tags",
  );
  assert.match(readFileSync(join(out, "loss_curve.html"), "utf8"), /<svg[^]*<path d="M/);
});

test("masking.evalMlmProbability masks the evaluation at its own rate and leaves training as it was", async () => {
  const own = await trainTiny(data, join(root, "eval-rate"), 2, { evalDir, masking: { evalMlmProbability: 0.5 } });
  const same = await trainTiny(data, join(root, "train-rate"), 2, { evalDir });
  const loss = (r: typeof own) => r.history.map((m) => m.loss);
  assert.deepEqual(loss(own), loss(same), "training masks at mlmProbability either way");
  // 0.5 against 0.25 selects about twice the tokens (about 34 of the eval split's ~136 at 0.25).
  const ratio = own.evalHistory.at(-1)!.eval_tokens! / same.evalHistory.at(-1)!.eval_tokens!;
  assert.ok(ratio > 1.5 && ratio < 2.6, `eval tokens at 0.5 over those at 0.25: ${ratio}`);
  const settings = (dir: string) => JSON.parse(readFileSync(join(root, dir, "checkpoint-2", "trainer_state.json"), "utf8")).run_settings;
  assert.equal(settings("eval-rate").mlm_probability, 0.25);
  assert.equal(settings("eval-rate").eval_mlm_probability, 0.5);
  assert.equal(settings("train-rate").eval_mlm_probability, undefined);
  await assert.rejects(
    trainTiny(data, join(root, "eval-rate-refused"), 2, { masking: { evalMlmProbability: "half" as unknown as number } }),
    (e: unknown) => e instanceof OptionError && e.option === "masking.evalMlmProbability",
  );
});

test("masking rates outside their ranges are refused, not clamped inside the step", async () => {
  const refused = async (masking: Partial<MaskingSettings>, option: string, why: RegExp) =>
    assert.rejects(
      trainTiny(data, join(root, "rate-refused"), 2, { masking }),
      (e: unknown) => e instanceof OptionError && e.option === option && why.test(e.message),
    );
  await refused({ mlmProbability: 0 }, "masking.mlmProbability", /must be in \(0, 1\]/);
  await refused({ evalMlmProbability: 1.5 }, "masking.evalMlmProbability", /must be in \(0, 1\]/);
  await refused({ randomFraction: -0.1 }, "masking.randomFraction", /must be in \[0, 1\]/);
  // 0.95 [MASK] and the default 0.1 random ids would share more than the selected tokens.
  await refused({ maskFraction: 0.95 }, "masking.maskFraction", /maskFraction \+ randomFraction 1\.05/);
  await refused({ maskFraction: 0.7, randomFraction: 0.4 }, "masking.randomFraction", /more than all the selected tokens/);
});

test("early stopping ends training when the eval loss stops improving; the best checkpoint is kept", async () => {
  const out = join(root, "early");
  // minDelta 10 counts no evaluation as an improvement: patience 1 stops at the second evaluation.
  const result = await trainTiny(data, out, 40, {
    evalDir,
    trainer: { evalEvery: 2, keepCheckpoints: 1 },
    callbacks: [new EarlyStopping({ patience: 1, minDelta: 10 }), new ModelCheckpoint({ saveBest: true })],
  });
  assert.equal(result.globalStep, 4, "stopped at the second evaluation");
  const best = result.evalHistory.reduce((a, b) => (b.eval_loss! < a.eval_loss! ? b : a));
  const state = JSON.parse(readFileSync(join(out, "checkpoint-4", "trainer_state.json"), "utf8"));
  assert.equal(state.best_model_checkpoint, join(out, `checkpoint-${best.step}`));
  assert.equal(state.best_metric, best.eval_loss);
  assert.ok(existsSync(join(out, `checkpoint-${best.step}`)), "the best checkpoint survives pruning");
  const own = JSON.parse(readFileSync(join(out, `checkpoint-${best.step}`, "trainer_state.json"), "utf8"));
  assert.equal(own.best_model_checkpoint, join(out, `checkpoint-${best.step}`), "the best checkpoint names itself");
});
