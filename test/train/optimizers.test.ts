// The Trainer with each optimizer: by name ("adamw" | "adafactor" | "lion") with the run's schedule, or an
// Optimizer object as given; what a checkpoint records of it, and the resumes it refuses (another
// optimizer's checkpoints) and allows (AdamW checkpoints written before optimizers had names).
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readSafetensors, writeSafetensors } from "../../src/models/safetensors.js";
import { Adafactor, Lion, createOptimizer } from "../../src/optim/index.js";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-optimizers-");
const data = join(root, "data");
await writeTinyShards(data, 48);

const runSettings = (dir: string, step: number) =>
  JSON.parse(readFileSync(join(dir, `checkpoint-${step}`, "trainer_state.json"), "utf8")).run_settings;

test("each optimizer by name trains, and its name is recorded in run settings and optimizer.safetensors", async () => {
  const first: Record<string, number> = {};
  for (const optimizer of ["adamw", "adafactor", "lion"] as const) {
    const out = join(root, `by-name-${optimizer}`);
    const result = await trainTiny(data, out, 4, { trainer: { optimizer } });
    assert.ok(result.history.every((h) => Number.isFinite(h.loss)));
    first[optimizer] = result.history.at(-1)!.loss!;
    assert.equal(runSettings(out, 4).optimizer, optimizer);
    assert.equal((await readSafetensors(join(out, "checkpoint-4", "optimizer.safetensors"))).metadata.optimizer, optimizer);
  }
  // Three update rules from the same start: three different losses after 4 steps.
  assert.equal(new Set(Object.values(first)).size, 3, JSON.stringify(first));
});

test("an Optimizer object is used as given; FitArgs.optimizer settings it would ignore are refused", async () => {
  const lion = new Lion({ learningRate: 1e-3, weightDecay: 0.1 });
  const out = join(root, "object");
  const settings = { weightDecay: undefined, warmupSteps: undefined };
  await trainTiny(data, out, 2, { trainer: { optimizer: lion }, optimizer: settings });
  assert.equal(runSettings(out, 2).optimizer, "lion");
  await assert.rejects(
    trainTiny(data, join(root, "object-settings"), 2, { trainer: { optimizer: lion } }),
    /FitArgs\.optimizer's weightDecay, warmupSteps, which configure the built-in optimizers, but TrainerOptions\.optimizer is an/,
  );
});

test("resuming with another optimizer is refused, naming the one the run was trained with", async () => {
  const out = join(root, "switch");
  await trainTiny(data, out, 2, { trainer: { optimizer: "lion" } });
  await assert.rejects(
    trainTiny(data, out, 4, { resume: true }),
    /checkpoint-2 was trained with the lion optimizer, but this run's optimizer is adamw: resume it with optimizer "lion"/,
  );
});

test("an AdamW checkpoint written before optimizers were named (no metadata, no run setting) still resumes", async () => {
  const out = join(root, "old-adamw");
  await trainTiny(data, out, 2);
  const ck = join(out, "checkpoint-2");
  const file = join(ck, "optimizer.safetensors");
  const { tensors } = await readSafetensors(file);
  await writeSafetensors(file, tensors);
  const state = JSON.parse(readFileSync(join(ck, "trainer_state.json"), "utf8"));
  delete state.run_settings.optimizer;
  // Nor did Kiln record file digests then (nor name checksums.json in trainer_state.json).
  delete state.checksums;
  writeFileSync(join(ck, "trainer_state.json"), JSON.stringify(state));
  rmSync(join(ck, "checksums.json"));
  const result = await trainTiny(data, out, 4, { resume: true });
  assert.equal(result.globalStep, 4);
});

test("settings an optimizer has no use for are refused by name, as are unknown names", () => {
  assert.throws(() => createOptimizer("adafactor", { learningRate: 1e-3, beta2: 0.98 }), /the adafactor optimizer has no beta2 setting/);
  assert.throws(() => createOptimizer("lion", { learningRate: 1e-3, eps: 1e-8 }), /the lion optimizer has no eps setting/);
  assert.throws(() => createOptimizer("sgd", { learningRate: 1e-3 }), /unknown optimizer "sgd"; choose one of adamw, adafactor, lion/);
  assert.throws(() => new Lion({ learningRate: 1e-3, beta2: 1.5 }), /Lion: beta2 must be in \[0, 1\], got 1.5/);
  // transformers' rule: an explicit rate and the relative step exclude each other.
  assert.throws(
    () => new Adafactor({ learningRate: 1e-3, relativeStep: true }),
    /a learningRate and relativeStep: true exclude each other/,
  );
  assert.throws(() => new Adafactor({ relativeStep: false }), /relativeStep: false needs a learningRate/);
});
