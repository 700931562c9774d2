// A killed training run resumed from its last checkpoint reproduces the uninterrupted run's losses: on
// ONNX Runtime, and on XLA's CPU plugin with 2 replicas (each keeping its own state on its own device);
// a masked LM and a causal LM; with AdamW (the default), Adafactor and Lion, whose states resume the same way.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { trainTiny, writeTinyShards } from "../helpers/tiny-training.js";
import type { TrainerOptions } from "../../src/train/trainer.js";
import type { TrainingTask } from "../../src/train/objectives/objective.js";
import { xlaCpuSkip, xlaCpuTrainer } from "../helpers/xla-cpu-plugin.js";
import { readSafetensors } from "../../src/models/safetensors.js";
import { tempDir } from "../helpers/temp-dir.js";

const script = fileURLToPath(new URL("../helpers/tiny-training.js", import.meta.url));

/** Per-step losses from metrics.jsonl, each step logged once (a resumed run drops the lines it replays). */
function losses(dir: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const line of readFileSync(join(dir, "metrics.jsonl"), "utf8").trim().split("\n")) {
    const m = JSON.parse(line);
    if (m.loss === undefined) continue;
    assert.ok(!out.has(m.step), `step ${m.step} is logged twice in ${dir}/metrics.jsonl`);
    out.set(m.step, m.loss);
  }
  return out;
}

/** The killed-and-resumed run's directory and the uninterrupted run's, after checking their losses agree. */
async function killAndResume(trainer: Partial<TrainerOptions>, task: TrainingTask = "mlm"): Promise<{ straight: string; resumed: string }> {
  const root = tempDir("kiln-resume-");
  const data = join(root, "data");
  await writeTinyShards(data);
  const steps = 9;
  await trainTiny(data, join(root, "straight"), steps, { trainer, task });
  const reference = losses(join(root, "straight"));
  assert.equal(reference.size, steps);

  // The killed run: SIGKILL once step 5 is done (checkpoint-4 exists, step 5's work is lost).
  const killedDir = join(root, "killed");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [script, data, killedDir, String(steps), "--trainer", JSON.stringify(trainer), "--task", task], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout.on("data", (chunk: Buffer) => {
      if (/step 5\n/.test(chunk.toString())) child.kill("SIGKILL");
    });
    child.on("exit", (code, signal) => (signal === "SIGKILL" ? resolve() : reject(new Error(`the run was not killed (exit ${code})`))));
  });
  assert.ok(readdirSync(killedDir).includes("checkpoint-4"));
  assert.ok(!readdirSync(killedDir).includes("checkpoint-6"));
  assert.ok(!readdirSync(killedDir).some((n) => n.startsWith(".checkpoint")), "no half-written checkpoint under a final name");

  await trainTiny(data, killedDir, steps, { resume: true, trainer, task });
  const resumed = losses(killedDir);
  assert.deepEqual(
    [...resumed.entries()].sort((a, b) => a[0] - b[0]),
    [...reference.entries()].sort((a, b) => a[0] - b[0]),
  );
  return { straight: join(root, "straight"), resumed: killedDir };
}

async function lossScaler(checkpoint: string): Promise<{ scale: number; goodSteps: number }> {
  const { tensors } = await readSafetensors(join(checkpoint, "optimizer.safetensors"));
  assert.ok(tensors.loss_scale && tensors.loss_scale_good_steps, `${checkpoint} holds no loss scaler state`);
  return { scale: tensors.loss_scale.data[0] as number, goodSteps: tensors.loss_scale_good_steps.data[0] as number };
}

test("kill -9 during training, then --resume: the loss sequence equals the uninterrupted run's", async () => {
  await killAndResume({});
});

test("a causal LM (llama-tiny): kill -9 during training, then --resume reproduces the uninterrupted losses", async () => {
  await killAndResume({}, "causal-lm");
});

test("on XLA:CPU with 2 replicas, kill -9 then --resume reproduces the uninterrupted losses", { skip: xlaCpuSkip }, async () => {
  await killAndResume(xlaCpuTrainer(2));
});

test("16-mixed: kill -9 then --resume restores the loss scale, reproducing the losses and the scale", async () => {
  // A scale that starts too high and grows every second good step: the steps it skips, and so the losses,
  // depend on the scale the run resumes with.
  const { straight, resumed } = await killAndResume({ precision: "16-mixed", lossScale: { initScale: 2 ** 24, growthInterval: 2 } });
  const history = JSON.parse(readFileSync(join(straight, "checkpoint-9", "trainer_state.json"), "utf8")).log_history;
  assert.ok(
    history.some((h: { step: number; skipped?: number }) => h.step > 4 && h.skipped),
    "no step after the checkpoint overflowed",
  );
  assert.deepEqual(await lossScaler(join(resumed, "checkpoint-9")), await lossScaler(join(straight, "checkpoint-9")));
});

for (const optimizer of ["adafactor", "lion"] as const)
  test(`${optimizer}: kill -9 then --resume reproduces the uninterrupted losses and optimizer state`, async () => {
    const { straight, resumed } = await killAndResume({ optimizer });
    const [a, b] = await Promise.all([straight, resumed].map((d) => readSafetensors(join(d, "checkpoint-9", "optimizer.safetensors"))));
    assert.equal(a!.metadata.optimizer, optimizer);
    const names = Object.keys(a!.tensors).sort();
    // Adafactor keeps row and column means of a matrix's squared gradients (transformers' names); Lion one momentum.
    const slot = optimizer === "adafactor" ? "exp_avg_sq_row." : "exp_avg.";
    assert.ok(names.includes(`${slot}roberta.encoder.layer.0.attention.self.query.weight`), names.join(", "));
    assert.ok(!names.some((n) => n.startsWith(optimizer === "adafactor" ? "exp_avg." : "exp_avg_sq")), names.join(", "));
    assert.deepEqual(Object.keys(b!.tensors).sort(), names);
    for (const n of names) assert.deepEqual(b!.tensors[n]!.data, a!.tensors[n]!.data, `${n} after the resumed run`);
  });
