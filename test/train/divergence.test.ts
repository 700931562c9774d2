// Training that goes wrong stops instead of finishing: a non-finite loss or gradient norm, flagged by the
// compiled step and read with the loss, ends the run with the step, the last finite loss and a hint,
// and nothing from the diverged state is written; "skip" drops such updates instead; a loss far above
// a uniform guess is reported.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as k from "../../src/index.js";
import { writeOneLayerConfig } from "../helpers/tiny-config.js";
import { TINY, tinyConfig, trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import { makeTrainStep, type TrainState } from "../../src/train/train-step.js";
import { maskedLmObjective } from "../../src/train/objectives/mlm.js";
import { createMaskedLM } from "../../src/models/index.js";
import { AdamW } from "../../src/optim/adamw.js";
import { readSafetensors } from "../../src/models/safetensors.js";
import { DivergenceWatch, MAX_OVERFLOWS_IN_A_ROW, MAX_SKIPPED_IN_A_ROW, TrainingDivergedError } from "../../src/train/divergence.js";
import { makeTestCorpus } from "../helpers/sotu-slice.js";
import { tempDir } from "../helpers/temp-dir.js";

const root = tempDir("kiln-divergence-");
const data = join(root, "data");
await writeTinyShards(data);

/** Every float in every safetensors file under dir is finite. */
async function allFinite(dir: string): Promise<boolean> {
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    if (!name.endsWith(".safetensors")) continue;
    const { tensors } = await readSafetensors(join(dir, name));
    for (const t of Object.values(tensors)) if ((t.data as Float32Array).some((x) => !Number.isFinite(x))) return false;
  }
  return true;
}

test("the compiled step flags a non-finite loss; 'skip' leaves parameters and optimizer state exactly as they were", async () => {
  const model = createMaskedLM(tinyConfig());
  const optimizer = new AdamW({ learningRate: 1e-3, weightDecay: 0.01 });
  const init = k.jit((key: k.Array) => model.init(key))(k.randomKey(0));
  const { vocab, length, batch } = TINY;
  const ids = Int32Array.from({ length: batch * length }, (_, i) => (i % length === 0 ? 0 : i % length === length - 1 ? 1 : 5 + (i % 50)));
  const inputs = {
    inputIds: k.array(ids, { shape: [batch, length] }),
    attentionMask: k.array(new Int32Array(ids.length).fill(1), { shape: [batch, length] }),
    exampleOffset: k.array(new Int32Array([0]), { shape: [] }),
    epoch: k.array(new Int32Array([0]), { shape: [] }),
  };
  const masking = { maskTokenId: 4, vocabSize: vocab, specialIds: [0, 1, 2, 3, 4], seed: 2, mlmProbability: 0.25 };
  const run = async (params: typeof init, nonFiniteUpdate: "skip" | "apply") => {
    const state: TrainState = { params, opt: k.jit((p: unknown) => optimizer.init(p))(params) };
    const step = k.jit(makeTrainStep({ objective: maskedLmObjective({ model, masking }), optimizer, dropoutSeed: 1, nonFiniteUpdate }));
    const out = step(state, inputs, k.array(new Int32Array([1]), { shape: [] }));
    const before = await Promise.all(k.leaves<k.Array>([state.params, state.opt] as unknown as k.PyTree).map((a) => a.data()));
    const after = await Promise.all(k.leaves<k.Array>([out.state.params, out.state.opt] as unknown as k.PyTree).map((a) => a.data()));
    return { flag: ((await out.metrics.nonFinite.data()) as Float32Array)[0], before, after };
  };
  // One NaN in the first layer's query weight poisons the loss.
  const names = k.leafPaths(init);
  const q = names.findIndex((n) => n.includes("layer.0.attention.self.query.weight"));
  const host = Float32Array.from((await k.leaves<k.Array>(init)[q]!.data()) as Float32Array);
  host[7] = NaN;
  let leaf = 0;
  const rebuilt = k.treeMap((a: k.Array) => (leaf++ === q ? k.array(host, { shape: a.shape }) : a), init);

  const clean = await run(init, "skip");
  assert.equal(clean.flag, 0);
  assert.ok(
    clean.after.some((x, i) => x.some((v, j) => v !== clean.before[i]![j])),
    "a finite step updates the state",
  );

  const skipped = await run(rebuilt, "skip");
  assert.equal(skipped.flag, 1);
  skipped.after.forEach((x, i) => assert.deepEqual(x, skipped.before[i], `state leaf ${i} unchanged`));

  const applied = await run(rebuilt, "apply");
  assert.equal(applied.flag, 1);
  assert.ok(
    applied.after.some((x, i) => x.some((v, j) => !Object.is(v, applied.before[i]![j]))),
    "'apply' lets the update through",
  );
});

test("a learning rate of 1e9 stops the run at the first non-finite step; nothing from the diverged state is written", async () => {
  const dir = join(root, "stop");
  await assert.rejects(
    trainTiny(data, dir, 8, { optimizer: { learningRate: 1e9 } }),
    (e: Error) =>
      e instanceof TrainingDivergedError &&
      new RegExp(
        "^training diverged at step (\\d+): (the loss is NaN|the loss is Infinity|the gradients are not finite \\(loss [\\d.e+]+\\)); " +
          "the last finite loss was [\\d.]+ at step \\d+\\. Nothing from the diverged state was saved\\. " +
          "To fix it, lower the learning rate \\(it is 1000000000\\) or clip gradients \\(clipNorm 1\\.0\\), " +
          "then start again or resume from the last checkpoint\\.$",
      ).test(e.message),
  );
  assert.ok(!existsSync(join(dir, "model.safetensors")), "no final model");
  assert.ok(await allFinite(dir), "every checkpoint written holds finite numbers");
  assert.doesNotMatch(readFileSync(join(dir, "metrics.jsonl"), "utf8"), /null|NaN/, "no non-finite value logged");
});

test("'skip' drops non-finite updates with a line each, then stops when they keep coming", async () => {
  const dir = join(root, "skip");
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    await assert.rejects(
      trainTiny(data, dir, 30, { optimizer: { learningRate: 1e9 }, trainer: { onNonFinite: "skip" } }),
      (e: Error) =>
        e instanceof TrainingDivergedError && e.message.startsWith(`training diverged: ${MAX_SKIPPED_IN_A_ROW} steps in a row up to step `),
    );
  } finally {
    console.error = original;
  }
  const skips = lines.filter((l) => / the update was skipped \(\d+ skipped so far\)$/.test(l));
  assert.equal(skips.length, MAX_SKIPPED_IN_A_ROW - 1, lines.join("\n"));
  assert.ok(await allFinite(dir));
  assert.ok(!existsSync(join(dir, "model.safetensors")));
});

test("DivergenceWatch: skips in a row reset on a finite step; endless f16 overflows stop the run; a huge loss warns once", () => {
  const watch = new DivergenceWatch({ outcomes: { count: 100, noun: "tokens" }, learningRate: 1, policy: "skip", precision: "16-mixed" });
  let step = 0;
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < MAX_SKIPPED_IN_A_ROW - 1; i++) assert.match(watch.step(++step, NaN, true, false)!, /the update was skipped/);
    assert.equal(watch.step(++step, 4.2, false, false), undefined);
  }
  assert.equal(watch.skippedTotal, 3 * (MAX_SKIPPED_IN_A_ROW - 1));
  for (let i = 0; i < MAX_OVERFLOWS_IN_A_ROW - 1; i++) assert.equal(watch.step(++step, 4, false, true), undefined);
  assert.throws(
    () => watch.step(++step, 4, false, true),
    /f16 gradients overflowed at 50 steps in a row .*use precision "bf16-mixed" instead of 16-mixed/,
  );
  const warn = new DivergenceWatch({ outcomes: { count: 100, noun: "tokens" }, learningRate: 1000, policy: "stop", clipNorm: 1 });
  assert.equal(warn.step(1, 4.6, false, false), undefined);
  assert.equal(
    warn.step(2, 1.5e8, false, false),
    "warning: step 2: the loss 1.5000e+8 is far above 4.61, the loss of a uniform guess over 100 tokens: " +
      "training is diverging; lower the learning rate (it is 1000)",
  );
  assert.equal(warn.step(3, 2e8, false, false), undefined, "once");
  assert.match(warn.finish()!, /^warning: the run ended with a loss of 2\.0000e\+8 at step 3, far above 4\.61/);
  // A classifier's uniform guess is over its classes: a loss of 4 is far above ln 2 (it is under 3·ln 100).
  const classifier = new DivergenceWatch({ outcomes: { count: 2, noun: "classes" }, learningRate: 1, policy: "stop" });
  assert.match(classifier.step(1, 4, false, false)!, /far above 0\.69, the loss of a uniform guess over 2 classes/);
});

test("kiln train: --learning-rate 1e9 exits 3 with the step and the hint; 1e3 trains with a warning; bad numbers are refused", async () => {
  const cli = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));
  const corpus = await makeTestCorpus(2, 300);
  const config = writeOneLayerConfig(join(root, "config.json"));
  const kiln = (out: string, ...more: string[]) => {
    const args = ["--tokenizer", corpus.tokenizerDir, "--train-data", data, "--model-config", config, "--output-dir", join(root, out)];
    const r = spawnSync(process.execPath, [cli, "train", ...args, "--per-replica-batch-size", "4", "--quiet", ...more], {
      encoding: "utf8",
    });
    return { code: r.status, err: r.stderr };
  };
  let r = kiln("cli-nan", "--learning-rate", "1e9", "--max-steps", "6");
  assert.equal(r.code, 3, r.err);
  assert.match(r.err, /^kiln: training diverged at step \d+: .*lower the learning rate \(it is 1000000000\)/m);
  assert.match(r.err, /or clip gradients \(--clip-norm 1\.0\), then start again/, "the advice in the words of the command line");
  assert.ok(!existsSync(join(root, "cli-nan", "model.safetensors")));

  r = kiln("cli-high", "--learning-rate", "1e3", "--max-steps", "4", "--warmup", "9");
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /warning: warmup of 9 steps is longer than the run \(4 steps\)/);
  assert.match(
    r.err,
    /warning: step \d: the loss [\d.e+]+ is far above 5\.70, the loss of a uniform guess over 300 tokens: training is diverging/,
  );

  for (const [flags, message] of [
    [["--learning-rate=-1"], /^--learning-rate must be ≥ 0, got -1$/],
    [["--clip-norm=-1"], /^--clip-norm must be > 0 \(a negative norm would turn training into gradient ascent\), got -1$/],
    [["--weight-decay=-0.1"], /^--weight-decay must be ≥ 0, got -0.1$/],
    [["--on-nan", "ignore"], /^--on-nan must be stop or skip, got "ignore"$/],
    [["stray"], /^kiln train: unexpected argument "stray" \(flags start with --; run `kiln train --help`\)$/],
    [["--resume", "--overwrite"], /--resume continues the run in --output-dir and --overwrite replaces it: give one/],
    [[], /^kiln train: the output directory .*cli-high is not empty \(checkpoint-4, checksums\.json, .*pass --resume .* --overwrite/],
  ] as const) {
    r = kiln("cli-high", ...flags);
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.err}`);
    assert.match(r.err.trim(), message);
  }
});
